"""The wizard's form controls: labelled, self-saving fields with their error beside them."""

from __future__ import annotations

import reflex as rx
from reflex.event import EventSpec

from benchmax.state.submit import SubmitState as S

AUTOSAVE_DELAY_MS = 800
# The browser's stamp for a save, read when the save is sent (see ``assets/wizard.js``): the
# page compares it with each field's newest keystroke to know what is still unsaved.
STAMP: rx.Var[int] = rx.Var(
    "(window.benchmaxWizardStamp ? window.benchmaxWizardStamp() : Date.now())"
)


def field_error(field: str) -> rx.Component:
    return rx.cond(
        S.errors.contains(field),
        rx.text(S.errors[field], color_scheme="red", size="2", id=f"error-{field}", role="alert"),
    )


def field_label(text: str, field: str, required: bool = False) -> rx.Component:
    marker = [rx.text.span(" *", color_scheme="red", aria_hidden="true")] if required else []
    return rx.text(text, *marker, as_="label", html_for=f"field-{field}", weight="medium", size="2")


def _bound(field: str, suggest: bool = False) -> dict[str, object]:
    """Props that make a control an uncontrolled, self-saving wizard field.

    The text stays in the browser; ``autosave`` receives it once typing pauses and again on
    blur, and the key remounts the control whenever the form is refilled from the server.
    """

    def changed(value: rx.Var[str]) -> list[EventSpec]:
        save = S.autosave(field, value, STAMP).debounce(AUTOSAVE_DELAY_MS)
        return [S.suggest(field, value), save] if suggest else [save]

    return {
        "id": f"field-{field}",
        "name": field,
        "key": f"{field}-" + S.form_key.to_string(),
        "default_value": getattr(S, field),
        "on_change": changed,
        "on_blur": lambda value: S.autosave(field, value, STAMP),
        "aria_invalid": S.errors.contains(field),
        "width": "100%",
    }


def _field(
    field: str, label: str, control: rx.Component, *, required: bool, hint: str
) -> rx.Component:
    return rx.vstack(
        field_label(label, field, required),
        control,
        *([rx.text(hint, size="1", color_scheme="gray")] if hint else []),
        field_error(field),
        spacing="1",
        width="100%",
    )


def text_area(
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
        aria_required="true" if required else None,
        font_family="var(--code-font-family)" if field == "prompt" else None,
    )
    return _field(field, label, control, required=required, hint=hint)


def text_input(
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
    control = rx.input(
        **_bound(field, suggest),
        placeholder=placeholder,
        list=list_id or None,
        type=input_type,
        max_length=200,
        aria_required="true" if required else None,
    )
    return _field(field, label, control, required=required, hint=hint)


def datalist(list_id: str, options: rx.Var[list[str]]) -> rx.Component:
    """Suggestions the server fills as the contributor types."""
    return rx.el.datalist(rx.foreach(options, lambda o: rx.el.option(value=o)), id=list_id)


def fixed_datalist(list_id: str, options: tuple[str, ...]) -> rx.Component:
    """Suggestions that never change, written into the page once."""
    return rx.el.datalist(*[rx.el.option(value=o) for o in options], id=list_id)
