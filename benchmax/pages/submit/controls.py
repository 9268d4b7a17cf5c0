"""The wizard's form controls: labelled, self-saving fields with their error beside them."""

from __future__ import annotations

from typing import TypedDict, Unpack

import reflex as rx
from reflex.event import EventSpec

from benchmax.components.fields import field_label as tied_label
from benchmax.state.submit.draft import WizardDraftState as D
from benchmax.state.submit.wizard import WizardState as W

AUTOSAVE_DELAY_MS = 800
# The browser's stamp for a save: the time of the DOM event that sent it (``_e`` is the
# event in Reflex's generated handler; see ``assets/wizard.js``). The page compares it with
# each field's newest keystroke to know what is still unsaved.
STAMP: rx.Var[int] = rx.Var(
    "(window.benchmaxWizardStamp ? window.benchmaxWizardStamp(_e) : Date.now())"
)


def field_error(field: str) -> rx.Component:
    """The field's error; once put right, the same words marked as met, in the same place."""
    return rx.cond(
        W.errors.contains(field),
        rx.text(W.errors[field], color_scheme="red", size="2", id=f"error-{field}", role="alert"),
        rx.cond(
            D.met.contains(field),
            rx.text(
                rx.el.span("✓ ", aria_hidden="true"),
                rx.el.span("Done: ", class_name="visually-hidden"),
                D.met[field],
                color_scheme="green",
                size="2",
                class_name="field-met",
            ),
        ),
    )


def field_label(text: str, field: str, required: bool = False) -> rx.Component:
    return tied_label(text, f"field-{field}", required=required, weight="medium")


class FieldText(TypedDict, total=False):
    """What every wizard field may say about itself, whatever its control."""

    required: bool
    hint: str
    placeholder: str


def _bound(field: str, text: FieldText, suggest: bool = False) -> dict[str, object]:
    """Props that make a control an uncontrolled, self-saving wizard field.

    The text stays in the browser; ``autosave`` receives it once typing pauses and again on
    blur, and the key remounts the control whenever the form is refilled from the server.
    """

    def changed(value: rx.Var[str]) -> list[EventSpec]:
        save = D.autosave(field, value, STAMP).debounce(AUTOSAVE_DELAY_MS)
        return [D.suggest(field, value), save] if suggest else [save]

    return {
        "id": f"field-{field}",
        "name": field,
        "key": f"{field}-" + D.form_key.to_string(),
        "default_value": getattr(D, field),
        "on_change": changed,
        "on_blur": lambda value: D.autosave(field, value, STAMP),
        "aria_invalid": W.errors.contains(field),
        "aria_required": "true" if text.get("required") else None,
        "placeholder": text.get("placeholder", ""),
        "width": "100%",
    }


def _field(field: str, label: str, control: rx.Component, text: FieldText) -> rx.Component:
    hint = text.get("hint", "")
    return rx.vstack(
        field_label(label, field, text.get("required", False)),
        control,
        *([rx.text(hint, size="1", color_scheme="gray")] if hint else []),
        field_error(field),
        spacing="1",
        width="100%",
    )


def text_area(
    field: str, label: str, *, rows: str = "6", **text: Unpack[FieldText]
) -> rx.Component:
    code = "var(--code-font-family)" if field == "prompt" else None
    control = rx.text_area(**_bound(field, text), rows=rows, font_family=code)
    return _field(field, label, control, text)


def text_input(
    field: str,
    label: str,
    *,
    list_id: str = "",
    suggest: bool = False,
    input_type: str = "text",
    **text: Unpack[FieldText],
) -> rx.Component:
    control = rx.input(
        **_bound(field, text, suggest), list=list_id or None, type=input_type, max_length=200
    )
    return _field(field, label, control, text)


def datalist(list_id: str, options: rx.Var[list[str]]) -> rx.Component:
    """Suggestions the server fills as the contributor types."""
    return rx.el.datalist(rx.foreach(options, lambda o: rx.el.option(value=o)), id=list_id)


def fixed_datalist(list_id: str, options: tuple[str, ...]) -> rx.Component:
    """Suggestions that never change, written into the page once."""
    return rx.el.datalist(*[rx.el.option(value=o) for o in options], id=list_id)
