"""The wizard's stepper and its five steps: prompt, declared setup, evidence, details, review."""

from __future__ import annotations

import reflex as rx

from benchmax.components.badges import declared_label
from benchmax.pages.submit.controls import (
    datalist,
    field_error,
    fixed_datalist,
    text_area,
    text_input,
)
from benchmax.pages.submit.files import evidence_step
from benchmax.services.submissions import REASONING_CHOICES, REASONING_HINT
from benchmax.state.submit import SubmitState as S
from benchmax.state.submit_steps import LAST_STEP, STEP_TITLES


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
        datalist("model-options", S.model_suggestions),
        datalist("harness-options", S.harness_suggestions),
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
        field_error("files"),
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


def editor() -> rx.Component:
    return rx.vstack(
        _stepper(),
        rx.heading(S.step_title, size="6", as_="h2", id="wizard-step-title"),
        # Refusals that belong to no one field (e.g. the account's cap on open drafts), on
        # whichever step they happen.
        field_error("form"),
        rx.form(
            rx.vstack(
                rx.match(
                    S.step,
                    (1, _step_one()),
                    (2, _step_two()),
                    (3, evidence_step()),
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
                    rx.cond(S.step < LAST_STEP, rx.button("Next", type="submit", id="wizard-next")),
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
