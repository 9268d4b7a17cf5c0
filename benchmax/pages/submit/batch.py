"""Step 2's "several setups": the choice, setups as rows, importing a panel reply, submitting
the batch and what became of each setup."""

from __future__ import annotations

from typing import Any, cast

import reflex as rx
from reflex.vars import ObjectVar

from benchmax.components.badges import declared_label
from benchmax.pages.submit.controls import fixed_datalist
from benchmax.services.submissions import REASONING_CHOICES, REASONING_HINT
from benchmax.services.submissions.panel import MAX_REPLY_BYTES
from benchmax.state.submit.batch import WizardBatchState as B
from benchmax.state.submit.draft import WizardDraftState as D

# The reply is read by the browser (``assets/panel_import.js``) and sent with the click; one
# too large to send is held back and only its size is.
_REPLY: rx.Var[dict[str, object]] = rx.Var(
    "(window.benchmaxPanelReply ? window.benchmaxPanelReply() : {text: '', size: 0})"
)
REPLY_TEXT: rx.Var[str] = rx.Var(f"{_REPLY}.text")
REPLY_SIZE: rx.Var[int] = rx.Var(f"{_REPLY}.size")

_INPUTS = (
    # field, label, required, placeholder
    ("model_label", "Model", True, "Claude Sonnet 4.5"),
    ("model_version_label", "Version (optional)", False, "20250929"),
    ("harness_label", "Harness", True, "Claude Code"),
    ("reasoning_label", "Reasoning", True, REASONING_HINT),
    ("attempts", "Attempts (optional)", False, "e.g. 3"),
    ("gateway_call_id", "Gateway call id (optional)", False, "call id, if any"),
)


def _mode(value: str, text: str) -> rx.Component:
    """One choice, its text the label of its radio (a click on either picks it)."""
    radio = rx.radio_group.item(
        value=value, id=f"mode-{value}", aria_labelledby=f"mode-{value}-text"
    )
    return rx.el.label(radio, rx.text(text, size="2", id=f"mode-{value}-text"), class_name="choice")


def setup_choice() -> rx.Component:
    return rx.vstack(
        rx.text("How many setups ran this prompt?", weight="medium", size="2", id="setup-count"),
        rx.radio_group.root(
            rx.vstack(
                _mode("single", "One setup"),
                _mode("several", "Several setups: one Test each, submitted together"),
                spacing="2",
            ),
            value=B.mode,
            on_change=B.set_mode,
            aria_labelledby="setup-count",
        ),
        spacing="1",
        width="100%",
    )


def _label(text: str, field_id: rx.Var[str], required: bool) -> rx.Component:
    marker = [rx.text.span(" *", color_scheme="red", aria_hidden="true")] if required else []
    return rx.text(
        text, *marker, as_="label", size="2", weight="medium", custom_attrs={"htmlFor": field_id}
    )


def _row_error(key: rx.Var[str], field: str) -> rx.Component:
    error_key = key + ":" + field
    return rx.cond(
        B.row_errors.contains(error_key),
        rx.text(
            B.row_errors[error_key],
            color_scheme="red",
            size="2",
            role="alert",
            id="row-" + key + "-error-" + field,
        ),
    )


def _bound(row: ObjectVar[dict[str, str]], field: str) -> dict[str, Any]:
    key = row["key"]
    return {
        "id": "row-" + key + "-" + field,
        "key": key + field,
        "default_value": row[field],
        "on_blur": lambda value: B.check_field(key, field, value),
        "aria_invalid": B.row_errors.contains(key + ":" + field),
        "width": "100%",
    }


def _input(row: ObjectVar[dict[str, str]], spec: tuple[str, str, bool, str]) -> rx.Component:
    field, label, required, placeholder = spec
    control = rx.input(
        **_bound(row, field),
        placeholder=placeholder,
        max_length=200,
        type="number" if field == "attempts" else "text",
        list="reasoning-options" if field == "reasoning_label" else None,
        aria_required="true" if required else None,
    )
    return rx.vstack(
        _label(label, "row-" + row["key"] + "-" + field, required),
        control,
        _row_error(row["key"], field),
        spacing="1",
        width="100%",
    )


def _area(row: ObjectVar[dict[str, str]], field: str, label: str, rows: str) -> rx.Component:
    required = field == "output_text"
    return rx.vstack(
        _label(label, "row-" + row["key"] + "-" + field, required),
        rx.text_area(
            **_bound(row, field),
            rows=rows,
            aria_required="true" if required else None,
            font_family="var(--code-font-family)" if required else None,
        ),
        _row_error(row["key"], field),
        spacing="1",
        width="100%",
    )


def _row(row: ObjectVar[dict[str, str]], index: rx.Var[int]) -> rx.Component:
    number = cast("rx.Var[int]", index + 1).to_string()
    return rx.box(
        rx.hstack(
            rx.heading("Setup " + number, size="3", as_="h3"),
            rx.cond(row["origin"] != "", rx.text(row["origin"], size="1", color_scheme="gray")),
            rx.spacer(),
            rx.button(
                "Remove",
                type="button",
                variant="soft",
                color_scheme="gray",
                size="1",
                on_click=B.remove_row(row["key"]),
                aria_label="Remove setup " + number,
                id="row-" + row["key"] + "-remove",
            ),
            align="center",
            width="100%",
            wrap="wrap",
        ),
        rx.grid(
            *[_input(row, spec) for spec in _INPUTS],
            columns=rx.breakpoints(initial="1", sm="2"),
            spacing="3",
            width="100%",
        ),
        _area(row, "settings_text", "Settings (optional)", "2"),
        _area(row, "output_text", "Output", "6"),
        _row_error(row["key"], "row"),
        key=row["key"],
        id="row-" + row["key"],
        class_name="batch-row",
        padding="0.75rem",
        border="1px solid var(--gray-a6)",
        border_radius="var(--radius-3)",
        width="100%",
        custom_attrs={"data-line": number},
    )


def _skipped(item: ObjectVar[dict[str, str]]) -> rx.Component:
    return rx.el.li(
        rx.text.strong("Seat " + item["position"] + " · " + item["seat"]),
        " (" + item["status"] + "): ",
        item["reason"],
        class_name="skipped-seat",
        font_size="var(--font-size-2)",
    )


def _import_panel() -> rx.Component:
    return rx.box(
        rx.heading("Import a panel reply", size="3", as_="h3"),
        rx.text(
            "Paste a bench gateway reply (or one line of its calls log), or choose the file. "
            "Each seat that answered becomes a setup to check; nothing is submitted yet.",
            size="2",
            color_scheme="gray",
        ),
        rx.vstack(
            _label("Panel reply (JSON)", rx.Var.create("panel-paste"), False),
            rx.text_area(
                id="panel-paste",
                rows="4",
                placeholder='{"object": "chat.completion", …, "bench": {"seats": […]}}',
                font_family="var(--code-font-family)",
                custom_attrs={"data-limit": str(MAX_REPLY_BYTES)},
                width="100%",
            ),
            rx.hstack(
                _label("Or choose a file", rx.Var.create("panel-file"), False),
                rx.el.input(
                    type="file", id="panel-file", accept=".json,.jsonl,.txt,application/json"
                ),
                spacing="2",
                align="center",
                wrap="wrap",
            ),
            rx.button(
                "Import",
                type="button",
                variant="soft",
                on_click=B.import_panel(REPLY_TEXT, REPLY_SIZE),
                id="panel-import",
            ),
            spacing="2",
            width="100%",
        ),
        rx.cond(
            B.import_error != "",
            rx.text(B.import_error, color_scheme="red", size="2", role="alert", id="panel-error"),
        ),
        rx.box(
            rx.cond(B.import_note != "", rx.text(B.import_note, size="2", id="panel-note")),
            rx.cond(
                B.skipped.length() > 0,
                rx.box(
                    rx.text("Skipped seats", weight="medium", size="2"),
                    rx.el.ul(rx.foreach(B.skipped, _skipped), id="panel-skipped"),
                ),
            ),
            role="status",
        ),
        padding="0.75rem",
        background="var(--gray-a2)",
        border_radius="var(--radius-3)",
        width="100%",
        id="panel-import-box",
    )


def _result(item: ObjectVar[dict[str, str]]) -> rx.Component:
    return rx.el.li(
        rx.cond(
            item["url"] != "",
            rx.fragment(
                rx.text.strong(item["label"]),
                ": ",
                rx.link(
                    "its Test",
                    href=item["url"],
                    id="result-link-" + item["line"],
                    aria_label="The Test of " + item["label"],
                ),
                " — processing; public once its safety check passes.",
            ),
            rx.fragment(
                rx.text.strong(item["label"]),
                " was not submitted",
                item["below"],
                ": ",
                item["message"],
            ),
        ),
        id="result-" + item["line"],
        class_name="batch-result",
        font_size="var(--font-size-2)",
        custom_attrs={"data-made": rx.cond(item["url"] != "", "1", "0")},
    )


def _results() -> rx.Component:
    return rx.cond(
        B.results.length() > 0,
        rx.box(
            rx.heading("What became of each setup", size="3", as_="h3"),
            rx.el.ul(rx.foreach(B.results, _result), id="batch-results"),
            rx.cond(
                B.rows.length() > 0,
                rx.text(
                    "The setups not submitted are below with what was typed in them: fix "
                    "them and submit again.",
                    size="2",
                ),
            ),
            role="status",
            tab_index=-1,  # focus lands here after a submission
            padding="0.75rem",
            border="1px solid var(--accent-a6)",
            border_radius="var(--radius-3)",
            width="100%",
            id="batch-results-box",
        ),
    )


def _prompt_box() -> rx.Component:
    return rx.box(
        rx.hstack(
            rx.text("Prompt (step 1), shared by every setup", weight="medium", size="2"),
            rx.spacer(),
            rx.link("Edit", href="/submit?step=1", on_click=D.go_to(1).prevent_default),
            width="100%",
        ),
        rx.cond(
            D.prompt != "",
            rx.text(
                D.prompt,
                white_space="pre-wrap",
                font_family="var(--code-font-family)",
                size="2",
                max_height="8rem",
                overflow_y="auto",
                id="batch-prompt",
            ),
            rx.text("No prompt yet: add it on step 1.", color_scheme="red", size="2"),
        ),
        width="100%",
    )


def batch_editor() -> rx.Component:
    """Step 2 when the contributor chose several setups: its own form, outside the steps'."""
    form = rx.form(
        rx.vstack(
            rx.foreach(B.rows, _row),
            rx.button(
                "Add a setup", type="button", variant="soft", on_click=B.add_row, id="row-add"
            ),
            rx.cond(
                B.batch_error != "",
                rx.text(B.batch_error, color_scheme="red", size="2", role="alert",
                        id="batch-error", tab_index=-1),
            ),
            rx.cond(
                B.rows.length() > 0,
                rx.button(B.submit_label, type="submit", size="3", loading=B.submitting,
                          id="batch-submit"),
            ),
            spacing="4",
            width="100%",
        ),
        on_submit=B.submit_batch,
        reset_on_submit=False,
        width="100%",
        id="batch-form",
    )  # fmt: skip
    return rx.vstack(
        declared_label(),
        _prompt_box(),
        _results(),
        _import_panel(),
        form,
        fixed_datalist("reasoning-options", REASONING_CHOICES),
        spacing="4",
        width="100%",
    )
