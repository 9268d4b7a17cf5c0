"""``/submit`` — the guided wizard: prompt → setup → output & evidence → details → submit."""

from __future__ import annotations

import reflex as rx

from benchmax.components.autorefresh import autorefresh_button
from benchmax.components.badges import declared_label, kind_icon
from benchmax.components.layout import page_shell
from benchmax.state.submit import POLL_SECONDS, STEP_TITLES
from benchmax.state.submit import SubmitState as S

ACCEPT_ATTRIBUTE = ".png,.jpg,.jpeg,.webp,.gif,.mp4,.webm,.txt,.log,.md,.json,.ndjson,.jsonl,.zip"
REASONING_CHOICES = ["none", "low", "medium", "high", "max", "unknown"]


def _error(field: str) -> rx.Component:
    return rx.cond(
        S.errors.contains(field),
        rx.text(S.errors[field], color_scheme="red", size="2", id=f"error-{field}", role="alert"),
    )


def _label(text: str, field: str, required: bool = False) -> rx.Component:
    marker = [rx.text.span(" *", color_scheme="red", aria_hidden="true")] if required else []
    return rx.text(text, *marker, as_="label", html_for=f"field-{field}", weight="medium", size="2")


def _bound(field: str) -> dict[str, object]:
    """Props that make a control an uncontrolled, self-saving wizard field.

    The text stays in the browser; ``autosave`` receives it on blur, and the key remounts
    the control whenever the form is refilled from the server.
    """
    return {
        "id": f"field-{field}",
        "name": field,
        "key": f"{field}-" + S.form_key.to_string(),
        "default_value": getattr(S, field),
        "on_blur": lambda value: S.autosave(field, value),
        "aria_invalid": S.errors.contains(field),
        "width": "100%",
    }


def _field(
    field: str, label: str, control: rx.Component, *, required: bool, hint: str
) -> rx.Component:
    return rx.vstack(
        _label(label, field, required),
        control,
        *([rx.text(hint, size="1", color_scheme="gray")] if hint else []),
        _error(field),
        spacing="1",
        width="100%",
    )


def _text_area(
    field: str,
    label: str,
    *,
    required: bool = False,
    rows: str = "6",
    hint: str = "",
    placeholder: str = "",
) -> rx.Component:
    control = rx.text_area(
        **_bound(field),
        rows=rows,
        placeholder=placeholder,
        font_family="var(--code-font-family)" if field == "prompt" else None,
    )
    return _field(field, label, control, required=required, hint=hint)


def _text_input(
    field: str,
    label: str,
    *,
    required: bool = False,
    placeholder: str = "",
    list_id: str = "",
    suggest: bool = False,
    input_type: str = "text",
    hint: str = "",
) -> rx.Component:
    suggestions = {"on_change": (lambda value: S.suggest(field, value))} if suggest else {}
    control = rx.input(
        **_bound(field),
        **suggestions,
        placeholder=placeholder,
        list=list_id or None,
        type=input_type,
        max_length=200,
    )
    return _field(field, label, control, required=required, hint=hint)


def _datalist(list_id: str, options: rx.Var[list[str]]) -> rx.Component:
    return rx.el.datalist(rx.foreach(options, lambda o: rx.el.option(value=o)), id=list_id)


def _step_one() -> rx.Component:
    return _text_area(
        "prompt",
        "The prompt you gave the model",
        required=True,
        rows="10",
        hint="Exactly what you sent. Never include API keys — BenchMax refuses "
        "text that contains one.",
        placeholder="Write a single-file HTML page that…",
    )


def _step_two() -> rx.Component:
    return rx.vstack(
        declared_label(),
        rx.grid(
            _text_input(
                "model_label",
                "Model",
                required=True,
                placeholder="Claude Sonnet 4.5",
                list_id="model-options",
                suggest=True,
                hint="Free text is fine; we suggest catalog names as you type.",
            ),
            _text_input(
                "model_version_label",
                "Version (optional)",
                placeholder="20250929 or a release date",
            ),
            _text_input(
                "harness_label",
                "Harness",
                required=True,
                placeholder="Claude Code",
                list_id="harness-options",
                suggest=True,
                hint="The app, CLI or API you ran it through.",
            ),
            _text_input(
                "reasoning_label",
                "Reasoning",
                required=True,
                list_id="reasoning-options",
                placeholder="none, low, medium, high, max, unknown…",
                hint="Pick one or type what your tool calls it.",
            ),
            _text_input(
                "attempts",
                "Attempts (optional)",
                input_type="number",
                placeholder="e.g. 3",
                hint="How many tries this Test was picked from. Blank reads "
                "“attempts not declared”.",
            ),
            columns=rx.breakpoints(initial="1", sm="2"),
            spacing="4",
            width="100%",
        ),
        _text_area(
            "settings_text",
            "Settings (optional)",
            rows="4",
            placeholder="temperature 0.2, max tokens 8k, tools enabled…",
        ),
        _datalist("model-options", S.model_suggestions),
        _datalist("harness-options", S.harness_suggestions),
        rx.el.datalist(*[rx.el.option(value=c) for c in REASONING_CHOICES], id="reasoning-options"),
        spacing="4",
        width="100%",
    )


def _file_row(item: rx.Var[dict[str, str]], removable: bool = True) -> rx.Component:
    return rx.hstack(
        kind_icon(item["kind"], 18),
        rx.vstack(
            rx.text(item["name"], weight="medium", size="2", class_name="file-name"),
            rx.text(
                item["size"],
                " · ",
                rx.match(
                    item["state"],
                    ("quarantined", rx.text.span("checking…", class_name="file-verdict")),
                    (
                        "approved",
                        rx.text.span(
                            "✓ passed the safety scan",
                            color_scheme="green",
                            class_name="file-verdict",
                        ),
                    ),
                    (
                        "blocked",
                        rx.text.span("✗ blocked", color_scheme="red", class_name="file-verdict"),
                    ),
                    rx.text.span(item["state"], class_name="file-verdict"),
                ),
                size="1",
                color_scheme="gray",
            ),
            rx.cond(
                item["reason"] != "",
                rx.text(item["reason"], size="2", color_scheme="red", class_name="file-reason"),
            ),
            spacing="0",
            min_width="0",
            flex="1",
        ),
        *(
            [
                rx.button(
                    rx.icon("trash-2", size=14),
                    "Remove",
                    variant="ghost",
                    color_scheme="red",
                    size="1",
                    type="button",
                    on_click=S.remove_file(item["id"]),
                    aria_label="Remove " + item["name"],
                )
            ]
            if removable
            else []
        ),
        width="100%",
        align="center",
        padding="0.5rem",
        border="1px solid var(--gray-a5)",
        border_radius="var(--radius-3)",
        class_name="file-row",
    )


def _live_note(text: str, refresh: rx.EventHandler, button_id: str) -> rx.Component:
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


def _step_three() -> rx.Component:
    return rx.vstack(
        _text_area(
            "output_text",
            "Output (Markdown)",
            rows="10",
            hint="Paste what the model returned. Add files below; you need output "
            "text, at least one file, or both.",
        ),
        _label("Evidence files", "files"),
        rx.el.label(
            rx.vstack(
                rx.icon("upload", size=28),
                rx.text("Drag and drop files here, or click to choose", weight="medium"),
                rx.text(
                    "Images (PNG, JPEG, WebP, GIF ≤ 20 MiB), video (MP4, WebM ≤ 500 MiB), "
                    "text and logs (≤ 20 MiB), or a source ZIP (≤ 20 MiB). Up to 20 files.",
                    size="1",
                    color_scheme="gray",
                    align="center",
                ),
                align="center",
                spacing="2",
            ),
            rx.el.input(
                type="file",
                multiple=True,
                id="evidence-input",
                accept=ACCEPT_ATTRIBUTE,
                class_name="visually-hidden",
            ),
            html_for="evidence-input",
            id="dropzone",
            custom_attrs={"data-draft": S.draft_id},
            class_name="dropzone",
        ),
        rx.box(id="upload-queue", width="100%"),
        rx.button(
            "Refresh files",
            type="button",
            id="files-refresh",
            on_click=S.refresh_files,
            display="none",
        ),
        rx.script(src="/uploads.js"),
        _error("files"),
        rx.vstack(
            rx.foreach(S.files, lambda item: _file_row(item)),
            width="100%",
            spacing="2",
            id="file-list",
        ),
        rx.cond(
            S.files_checking,
            _live_note(
                "Each file is checked as soon as it arrives; this list updates by itself.",
                S.refresh_files,
                "files-check-now",
            ),
        ),
        rx.cond(
            S.has_zip,
            rx.vstack(
                rx.text("Source ZIP visibility", weight="medium", size="2"),
                rx.radio_group.root(
                    rx.flex(
                        rx.radio_group.item(value="private", id="source-private"),
                        rx.text(
                            "Private: used only for the automated preview, never served", size="2"
                        ),
                        rx.radio_group.item(value="public", id="source-public"),
                        rx.text("Public: anyone can download it", size="2"),
                        spacing="2",
                        align="center",
                        wrap="wrap",
                    ),
                    value=S.source_visibility,
                    on_change=lambda v: S.autosave("source_visibility", v),
                ),
                width="100%",
            ),
        ),
        spacing="3",
        width="100%",
    )


def _step_four() -> rx.Component:
    return rx.vstack(
        _text_input(
            "title", "Title (optional)", placeholder="Shown instead of the prompt's first line"
        ),
        _text_area(
            "notes",
            "Notes (optional)",
            rows="5",
            placeholder="Anything a reader should know: context, caveats…",
        ),
        spacing="4",
        width="100%",
    )


def _summary_row(label: str, value: rx.Var[str]) -> rx.Component:
    return rx.data_list.item(
        rx.data_list.label(label), rx.data_list.value(rx.text(value, white_space="pre-wrap"))
    )


def _step_five() -> rx.Component:
    return rx.vstack(
        rx.text(
            "Check everything, then submit. Files are scanned for safety; when they pass, "
            "your Test is public at once as Awaiting review.",
            color_scheme="gray",
        ),
        rx.data_list.root(
            _summary_row("Prompt", S.prompt),
            _summary_row("Model", S.model_label + " " + S.model_version_label),
            _summary_row("Harness", S.harness_label),
            _summary_row("Reasoning", S.reasoning_label),
            _summary_row(
                "Attempts", rx.cond(S.attempts != "", S.attempts, "attempts not declared")
            ),
            _summary_row("Title", rx.cond(S.title != "", S.title, "—")),
            _summary_row("Files", S.files.length().to_string()),
            orientation=rx.breakpoints(initial="vertical", sm="horizontal"),
        ),
        declared_label(),
        _error("files"),
        rx.button("Submit Test", type="button", size="3", on_click=S.submit, id="wizard-submit"),
        spacing="4",
        width="100%",
    )


def _stepper() -> rx.Component:
    return rx.flex(
        *[
            rx.button(
                f"{index}. {title}",
                variant=rx.cond(S.step == index, "solid", "soft"),
                size="1",
                on_click=S.go_to(index),
                aria_current=rx.cond(S.step == index, "step", "false"),
                id=f"step-{index}",
            )
            for index, title in enumerate(STEP_TITLES, start=1)
        ],
        spacing="2",
        wrap="wrap",
        as_="nav",
        aria_label="Wizard steps",
    )


def _editor() -> rx.Component:
    return rx.vstack(
        _stepper(),
        rx.heading(S.step_title, size="6", id="wizard-step-title"),
        # Refusals that belong to no one field (e.g. the account's cap on open drafts), on
        # whichever step they happen.
        _error("form"),
        rx.form(
            rx.vstack(
                rx.match(
                    S.step,
                    (1, _step_one()),
                    (2, _step_two()),
                    (3, _step_three()),
                    (4, _step_four()),
                    _step_five(),
                ),
                rx.hstack(
                    rx.cond(
                        S.step > 1,
                        rx.button(
                            "Back",
                            type="button",
                            variant="soft",
                            on_click=S.previous_step,
                            id="wizard-back",
                        ),
                    ),
                    rx.spacer(),
                    rx.text(S.saved_at, size="1", color_scheme="gray", id="wizard-saved"),
                    rx.cond(S.step < 5, rx.button("Next", type="submit", id="wizard-next")),
                    width="100%",
                    align="center",
                ),
                spacing="4",
                width="100%",
            ),
            on_submit=S.next_step,
            width="100%",
        ),
        spacing="4",
        width="100%",
    )


def _processing() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.cond(
                    S.phase == "processing",
                    rx.spinner(size="3"),
                    rx.icon(rx.cond(S.public_url != "", "circle-check", "circle-alert"), size=24),
                ),
                rx.heading(S.status_label, size="5", id="processing-status"),
                align="center",
                spacing="3",
            ),
            rx.cond(S.status_reason != "", rx.text(S.status_reason, id="processing-reason")),
            rx.vstack(
                rx.foreach(S.files, lambda item: _file_row(item, removable=False)),
                width="100%",
                spacing="2",
            ),
            rx.cond(
                S.public_url != "",
                rx.hstack(
                    rx.link(
                        rx.button("View your public Test", size="3"),
                        href=S.public_url,
                        id="processing-public-link",
                    ),
                    rx.button("Submit another", size="3", variant="soft", on_click=S.start_new),
                    wrap="wrap",
                ),
            ),
            rx.cond(
                (S.phase == "done") & (S.public_url == ""),
                rx.hstack(
                    rx.link(rx.button("Fix it now"), href="/submit?draft=" + S.draft_id),
                    rx.link(rx.button("My Tests", variant="soft"), href="/me"),
                ),
            ),
            rx.cond(
                S.phase == "processing",
                _live_note(
                    "Scanning files. This page updates by itself.",
                    S.check_processing,
                    "processing-refresh",
                ),
            ),
            spacing="3",
            width="100%",
        ),
        width="100%",
        id="processing-panel",
    )


def _signed_out() -> rx.Component:
    return rx.callout.root(
        rx.callout.icon(rx.icon("log-in")),
        rx.callout.text(
            "Sign in to submit a Test. ",
            rx.link("Sign in", href="/sign-in?next=/submit", id="submit-sign-in"),
        ),
        width="100%",
    )


def submit_page() -> rx.Component:
    return page_shell(
        rx.vstack(
            rx.heading("Submit a Test", size="7"),
            rx.cond(
                S.loaded,
                rx.cond(
                    S.signed_in,
                    rx.cond(
                        S.viewer_can_write,
                        rx.cond(S.phase == "edit", _editor(), _processing()),
                        rx.callout(
                            "Your account is suspended, so you cannot submit. You can "
                            "still browse.",
                            icon="ban",
                            color_scheme="red",
                        ),
                    ),
                    _signed_out(),
                ),
                rx.center(rx.spinner(size="3"), padding="4rem"),
            ),
            rx.cond(S.notice != "", rx.callout(S.notice, icon="info", color_scheme="amber")),
            spacing="4",
            width="100%",
            max_width="820px",
        )
    )
