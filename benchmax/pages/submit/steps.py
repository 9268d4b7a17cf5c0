"""The wizard's stepper and its five steps: prompt, declared setup, evidence, details, review."""

from __future__ import annotations

import reflex as rx

from benchmax.components.badges import declared_label
from benchmax.components.blocks import column, list_or, muted
from benchmax.pages.submit.batch import batch_editor, setup_choice
from benchmax.pages.submit.controls import (
    datalist,
    field_error,
    fixed_datalist,
    text_area,
    text_input,
)
from benchmax.pages.submit.files import evidence_step, file_row
from benchmax.services.submissions import REASONING_CHOICES, REASONING_HINT
from benchmax.state.submit.batch import WizardBatchState as B
from benchmax.state.submit.draft import WizardDraftState as D
from benchmax.state.submit.files import WizardFilesState as F
from benchmax.state.submit.processing import WizardProcessingState as P
from benchmax.state.submit.steps import LAST_STEP, STEP_TITLES
from benchmax.state.submit.wizard import WizardState as W


def _step_one() -> rx.Component:
    return text_area(
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
            text_input(
                "model_label",
                "Model",
                required=True,
                placeholder="Claude Sonnet 4.5",
                list_id="model-options",
                suggest=True,
                hint="Free text is fine; we suggest catalog names as you type.",
            ),
            text_input(
                "model_version_label",
                "Version (optional)",
                placeholder="20250929 or a release date",
            ),
            text_input(
                "harness_label",
                "Harness",
                required=True,
                placeholder="Claude Code",
                list_id="harness-options",
                suggest=True,
                hint="The app, CLI or API you ran it through.",
            ),
            text_input(
                "reasoning_label",
                "Reasoning",
                required=True,
                list_id="reasoning-options",
                placeholder=REASONING_HINT,
                hint="Pick one or type what your tool calls it.",
            ),
            text_input(
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
        text_area(
            "settings_text",
            "Settings (optional)",
            rows="4",
            placeholder="temperature 0.2, max tokens 8k, tools enabled…",
        ),
        datalist("model-options", D.model_suggestions),
        datalist("harness-options", D.harness_suggestions),
        fixed_datalist("reasoning-options", REASONING_CHOICES),
        spacing="4",
        width="100%",
    )


def _step_four() -> rx.Component:
    return rx.vstack(
        text_input(
            "title", "Title (optional)", placeholder="Shown instead of the prompt's first line"
        ),
        text_area(
            "notes",
            "Notes (optional)",
            rows="5",
            placeholder="Anything a reader should know: context, caveats…",
        ),
        spacing="4",
        width="100%",
    )


def _summary_row(label: str, value: rx.Var[str] | str, row_id: str) -> rx.Component:
    return rx.data_list.item(
        rx.data_list.label(label),
        rx.data_list.value(rx.text(value, white_space="pre-wrap", id=row_id)),
    )


def _or_dash(value: rx.Var[str], empty: str = "—") -> rx.Var[str]:
    return rx.cond(value != "", value, empty)


def _review_section(title: str, step: int, *body: rx.Component) -> rx.Component:
    """One part of the submission as it will read, with a link back to the step that edits it."""
    return rx.box(
        rx.hstack(
            rx.heading(title, size="4", as_="h3"),
            rx.spacer(),
            rx.link(
                "Edit",
                href=wizard_href(step),
                on_click=D.go_to(step).prevent_default,
                aria_label=f"Edit {title.lower()}",
                id=f"review-edit-{step}",
            ),
            align="center",
            width="100%",
        ),
        *body,
        width="100%",
        padding="0.75rem",
        border="1px solid var(--gray-a5)",
        border_radius="var(--radius-3)",
        class_name="review-section",
        id=f"review-section-{step}",
    )


def _markdown(html: rx.Var[str], empty: str, box_id: str) -> rx.Component:
    return rx.cond(
        html != "",
        rx.box(rx.html(html), class_name="markdown-body", width="100%", id=box_id),
        rx.text(empty, color_scheme="gray", size="2", id=box_id),
    )


def _review_setup() -> rx.Component:
    return rx.data_list.root(
        _summary_row("Model", D.model_label + " " + D.model_version_label, "review-model"),
        _summary_row("Harness", D.harness_label, "review-harness"),
        _summary_row("Reasoning", D.reasoning_label, "review-reasoning"),
        _summary_row("Attempts", _or_dash(D.attempts, "attempts not declared"), "review-attempts"),
        _summary_row("Settings", _or_dash(D.settings_text, "none declared"), "review-settings"),
        orientation=rx.breakpoints(initial="vertical", sm="horizontal"),
    )


def _review_files() -> rx.Component:
    return rx.vstack(
        rx.text("Files", weight="medium", size="2"),
        list_or(
            F.files,
            column(rx.foreach(F.files, lambda item: file_row(item, removable=False)), spacing="2"),
            muted("No files."),
        ),
        rx.cond(
            F.has_zip,
            rx.text(
                rx.cond(D.source_visibility == "public", ZIP_PUBLIC, ZIP_PRIVATE), id="review-zip"
            ),
        ),
        width="100%",
        spacing="2",
    )


ZIP_PUBLIC = "Source ZIP: public — anyone can download it."
ZIP_PRIVATE = "Source ZIP: private — used only for the automated preview, never served."


def _step_five() -> rx.Component:
    """The whole submission as the Test page will show it, each part with its Edit link."""
    return rx.vstack(
        rx.text(
            "This is how your Test will read. Files are scanned for safety; when they pass, "
            "your Test is public at once, awaiting review.",
            color_scheme="gray",
        ),
        _review_section(
            "Prompt",
            1,
            rx.text(
                D.prompt,
                white_space="pre-wrap",
                font_family="var(--code-font-family)",
                id="review-prompt",
            ),
        ),
        _review_section("Declared setup", 2, declared_label(), _review_setup()),
        _review_section(
            "Output & evidence",
            3,
            _markdown(
                D.output_html, "No output text; the files are the evidence.", "review-output"
            ),
            _review_files(),
        ),
        _review_section(
            "Details",
            4,
            rx.data_list.root(
                _summary_row("Title", _or_dash(D.title, "the prompt's first line"), "review-title"),
                # The notes are Markdown, drawn as the Test page will; the <dt> names them.
                rx.data_list.item(
                    rx.data_list.label("Notes", id="review-notes-label"),
                    rx.data_list.value(
                        _markdown(D.notes_html, "No notes.", "review-notes"),
                        aria_labelledby="review-notes-label",
                        min_width="0",
                    ),
                ),
                orientation=rx.breakpoints(initial="vertical", sm="horizontal"),
            ),
        ),
        field_error("files"),
        spacing="4",
        width="100%",
    )


def wizard_href(step: int) -> rx.Var[str]:
    """The step's address, for links that also work opened in a new tab."""
    return rx.cond(
        W.draft_id != "",
        f"/submit?step={step}&draft=" + W.draft_id,
        f"/submit?step={step}",
    )


def _stepper() -> rx.Component:
    return rx.flex(
        *[_step_button(index, title) for index, title in enumerate(STEP_TITLES, start=1)],
        spacing="2",
        wrap="wrap",
        as_="nav",
        aria_label="Wizard steps",
        class_name="wizard-steps",
    )


def _step_button(index: int, title: str) -> rx.Component:
    button = rx.button(
        # On a phone only the current step shows its title (assets/shell.css); the others
        # keep theirs for screen readers, so every button is still named "2. Declared setup".
        f"{index}.",
        rx.el.span(f" {title}", class_name="step-title"),
        variant=rx.cond(W.step == index, "solid", "soft"),
        size="1",
        type="button",
        on_click=D.go_to(index),
        aria_current=rx.cond(W.step == index, "step", "false"),
        id=f"step-{index}",
    )
    # Several setups are submitted from step 2: the single Test's later steps are not theirs.
    return rx.cond(B.several, rx.fragment(), button) if index > 2 else button


def save_status() -> rx.Component:
    """Whether what was typed is stored: the server's answer, and the browser's "Saving…"
    while a keystroke is still on its way (``assets/wizard.js`` fills that part and the age)."""
    return rx.box(
        rx.text.span(
            D.save_note,
            rx.text.span(class_name="saved-ago"),
            id="wizard-save-server",
        ),
        rx.text.span(id="wizard-save-local"),
        id="wizard-saved",
        role="status",
        aria_live="polite",
        class_name="save-status",
        color=rx.cond(D.refused.length() > 0, "var(--red-11)", "var(--gray-11)"),
        font_size="var(--font-size-1)",
        custom_attrs={
            "data-answered": D.answered.to_string(),
            "data-refused": rx.cond(D.refused.length() > 0, "1", ""),
            "data-saved-stamp": D.saved_stamp.to_string(),
            "data-state": rx.cond(D.save_note == "Saved", "saved", "other"),
        },
    )


def _buttons() -> rx.Component:
    return rx.hstack(
        rx.cond(
            W.step > 1,
            rx.button(
                "Back", type="button", variant="soft", on_click=D.previous_step, id="wizard-back"
            ),
        ),
        rx.spacer(),
        save_status(),
        # The step's forward action is last, right of Back, on every step the review included.
        rx.cond(
            W.step < LAST_STEP,
            rx.button("Next", type="submit", id="wizard-next"),
            rx.button(
                "Submit Test",
                **{"type": "button", "id": "wizard-submit"},
                on_click=P.submit,
                loading=W.phase != "edit",
            ),
        ),
        width="100%",
        align="center",
        wrap="wrap",
    )


def _current_step() -> rx.Component:
    return rx.match(
        W.step, (1, _step_one()), (2, _step_two()), (3, evidence_step()), (4, _step_four()),
        _step_five(),
    )  # fmt: skip


def editor() -> rx.Component:
    heading = rx.heading(
        D.step_title,
        **{"size": "6", "as_": "h2", "id": "wizard-step-title", "class_name": "step-heading"},
        tab_index=-1,  # focus moves here after each step change
    )
    form = rx.form(
        rx.vstack(_current_step(), _buttons(), spacing="4", width="100%"),
        on_submit=D.next_step,
        width="100%",
        id="wizard-form",
    )
    # Several setups are submitted from step 2 by their own form (``pages/submit/batch.py``).
    # The choice stays outside both forms, so picking one keeps the keyboard's place.
    form = rx.fragment(
        rx.cond(W.step == 2, setup_choice()),
        rx.cond((W.step == 2) & B.several, batch_editor(), form),
    )
    # ``form`` errors are refusals that belong to no one field (e.g. the account's cap on
    # open drafts), on whichever step they happen.
    return rx.vstack(_stepper(), heading, field_error("form"), form, spacing="4", width="100%")
