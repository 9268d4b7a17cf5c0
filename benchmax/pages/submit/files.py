"""Step 3's evidence: the upload drop zone, the file rows with their verdicts, the ZIP's
visibility, and the note that says the list follows the scans by itself."""

from __future__ import annotations

import json

import reflex as rx
from reflex.vars import ObjectVar

from benchmax.components.autorefresh import autorefresh_button
from benchmax.components.badges import kind_icon
from benchmax.components.blocks import muted
from benchmax.file_types import KINDS, accept_attribute, of_kind
from benchmax.pages.submit.controls import field_error, text_area
from benchmax.services.safety.limits import MIB, SafetyLimits
from benchmax.services.safety.result import Kind
from benchmax.state.submit.draft import WizardDraftState as D
from benchmax.state.submit.files import POLL_SECONDS, WizardFile
from benchmax.state.submit.files import WizardFilesState as F
from benchmax.state.submit.wizard import WizardState as W

_LIMITS = SafetyLimits()
_PICKER_LABELS = {"image": "image", "video": "video", "text": "text", "source": "ZIP"}


def _mib(kind: Kind) -> int:
    """The largest file of ``kind`` the scanner accepts, in MiB."""
    return {
        "image": _LIMITS.image_max_bytes,
        "video": _LIMITS.video_max_bytes,
        "text": _LIMITS.text_max_bytes,
        "source": _LIMITS.zip_max_bytes,
    }[kind] // MIB


def upload_kinds() -> str:
    """What ``assets/uploads.js`` checks before sending a file, from the scanner's table:
    per kind its label, size cap in MiB, content types and extensions."""
    return json.dumps(
        [
            {
                "label": _PICKER_LABELS[kind],
                "max": _mib(kind),
                "types": [
                    name
                    for t in of_kind(kind)
                    for name in (t.content_type.split(";")[0], *t.browser_types)
                ],
                "exts": [f".{ext}" for t in of_kind(kind) for ext in t.extensions],
            }
            for kind in KINDS
        ]
    )


def _verdict(state: rx.Var[str]) -> rx.Component:
    return rx.match(
        state,
        ("quarantined", rx.text.span("checking…", class_name="file-verdict")),
        (
            "approved",
            rx.text.span(
                "✓ passed the safety scan", color_scheme="green", class_name="file-verdict"
            ),
        ),
        ("blocked", rx.text.span("✗ blocked", color_scheme="red", class_name="file-verdict")),
        rx.text.span(state, class_name="file-verdict"),
    )


def _remove_button(item: ObjectVar[WizardFile]) -> rx.Component:
    return rx.button(
        rx.icon("trash-2", size=14),
        "Remove",
        variant="ghost",
        color_scheme="red",
        size="1",
        type="button",
        on_click=F.remove_file(item.id),
        aria_label="Remove " + item.name,
    )


def _thumb_slot(item: ObjectVar[WizardFile]) -> rx.Component:
    """Where ``assets/uploads.js`` shows an image from the contributor's own copy of it.

    Draft evidence is never served (not by this app, and not by the user-content origin
    until the Test is public), so the picture comes from the file the browser still holds;
    after a reload the slot stays empty rather than fetch the bytes from anywhere.
    """
    return rx.box(
        class_name="file-thumb",
        custom_attrs={"data-file-id": item.id, "data-state": item.state, "data-kind": item.kind},
        aria_hidden="true",
    )


def _row_note(text: rx.Var[str], color: str, class_name: str, mark: str = "") -> rx.Component:
    """A line under the file's name, shown only when there is something to say."""
    return rx.cond(
        text != "",
        rx.text(mark, text, size="2", color_scheme=color, class_name=class_name),
    )


def file_row(item: ObjectVar[WizardFile], removable: bool = True) -> rx.Component:
    """One file with its size, safety verdict and any duplicate warning; ``removable`` while
    still editing."""
    return rx.hstack(
        _thumb_slot(item),
        kind_icon(item.kind, 18),
        rx.vstack(
            rx.text(item.name, weight="medium", size="2", class_name="file-name"),
            rx.text(item.size, " · ", _verdict(item.state), size="1", color_scheme="gray"),
            _row_note(item.reason, "red", "file-reason"),
            _row_note(item.duplicate, "amber", "file-duplicate", "⚠ "),
            spacing="0",
            min_width="0",
            flex="1",
        ),
        *([_remove_button(item)] if removable else []),
        width="100%",
        align="center",
        padding="0.5rem",
        border="1px solid var(--gray-a5)",
        border_radius="var(--radius-3)",
        class_name="file-row",
        custom_attrs={"data-file-id": item.id},
    )


def live_note(text: str, refresh: rx.EventHandler, button_id: str) -> rx.Component:
    """Says the view follows the scans by itself, beside the button the browser presses."""
    return rx.hstack(
        rx.text(text, size="2", color_scheme="gray"),
        autorefresh_button(
            "Check now",
            every_seconds=POLL_SECONDS,
            size="1",
            variant="ghost",
            type="button",
            on_click=refresh,
            id=button_id,
        ),
        align="center",
        wrap="wrap",
    )


def _dropzone() -> rx.Component:
    """A label around a hidden file input; ``assets/uploads.js`` sends what is dropped."""
    return rx.el.label(
        rx.vstack(
            rx.icon("upload", size=28),
            rx.text("Drag and drop files here, or click to choose", weight="medium"),
            muted(
                f"Images (PNG, JPEG, WebP, GIF ≤ {_mib('image')} MiB), video (MP4, WebM "
                f"≤ {_mib('video')} MiB), text and logs (≤ {_mib('text')} MiB), or a source "
                f"ZIP (≤ {_mib('source')} MiB). Up to {_LIMITS.test_max_files} files.",
                size="1",
                align="center",
            ),
            align="center",
            spacing="2",
        ),
        rx.el.input(
            type="file",
            multiple=True,
            id="evidence-input",
            accept=accept_attribute(),
            class_name="visually-hidden",
        ),
        html_for="evidence-input",
        id="dropzone",
        custom_attrs={"data-draft": W.draft_id, "data-kinds": upload_kinds()},
        class_name="dropzone",
    )


def _visibility_option(value: str, text: str) -> rx.Component:
    """One choice, its text the label of its radio (a click on either picks it)."""
    radio = rx.radio_group.item(value=value, id=f"source-{value}")
    return rx.el.label(radio, rx.text(text, size="2"), class_name="choice")


def _source_visibility() -> rx.Component:
    return rx.vstack(
        rx.text("Source ZIP visibility", weight="medium", size="2", id="source-visibility-label"),
        rx.radio_group.root(
            rx.vstack(
                _visibility_option(
                    "private", "Private: used only for the automated preview, never served"
                ),
                _visibility_option("public", "Public: anyone can download it"),
                spacing="2",
            ),
            value=D.source_visibility,
            on_change=lambda v: D.autosave("source_visibility", v),
            aria_labelledby="source-visibility-label",
        ),
        width="100%",
    )


def _hidden_button(label: str, button_id: str, handler: rx.EventHandler) -> rx.Component:
    """A button the upload script presses to reach the page state. A plain ``<button
    hidden>``: Radix's button class sets ``display``, which outranks a ``display: none``
    style prop and showed these as two stray buttons in step 3."""
    return rx.el.button(label, type="button", id=button_id, on_click=handler, hidden=True)


def evidence_step() -> rx.Component:
    """Step 3: the output text, then the files and each one's verdict as it arrives."""
    return rx.vstack(
        text_area(
            "output_text",
            "Output (Markdown)",
            rows="10",
            hint="Paste what the model returned. Add files below; you need output "
            "text, at least one file, or both.",
        ),
        # Not a <label>: the drop zone below is the file input's label.
        rx.text("Evidence files", size="2", id="evidence-files-title"),
        _dropzone(),
        rx.box(id="upload-queue", width="100%"),
        _hidden_button("Refresh files", "files-refresh", F.refresh_files),
        _hidden_button("Start the draft", "draft-create", D.ensure_draft),
        field_error("files"),
        rx.vstack(
            rx.foreach(F.files, lambda item: file_row(item)),
            width="100%",
            spacing="2",
            id="file-list",
        ),
        rx.cond(
            F.files_checking,
            live_note(
                "Each file is checked as soon as it arrives; this list updates by itself.",
                F.refresh_files,
                "files-check-now",
            ),
        ),
        rx.cond(F.has_zip, _source_visibility()),
        spacing="3",
        width="100%",
    )
