"""The wizard's form controls: labelled, self-saving fields with their error beside them."""

from __future__ import annotations

import reflex as rx

from benchmax.components.fields import field_label as tied_label
from benchmax.state.submit import SubmitState as S


def field_error(field: str) -> rx.Component:
    return rx.cond(
        S.errors.contains(field),
        rx.text(S.errors[field], color_scheme="red", size="2", id=f"error-{field}", role="alert"),
    )


def field_label(text: str, field: str, required: bool = False) -> rx.Component:
    return tied_label(text, f"field-{field}", required=required, weight="medium")


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
    suggestions = {"on_change": (lambda value: S.suggest(field, value))} if suggest else {}
    control = rx.input(
        **_bound(field),
        **suggestions,
        placeholder=placeholder,
        list=list_id or None,
        type=input_type,
        aria_required="true" if required else None,
        max_length=200,
    )
    return _field(field, label, control, required=required, hint=hint)


def datalist(list_id: str, options: rx.Var[list[str]]) -> rx.Component:
    """Suggestions the server fills as the contributor types."""
    return rx.el.datalist(rx.foreach(options, lambda o: rx.el.option(value=o)), id=list_id)


def fixed_datalist(list_id: str, options: tuple[str, ...]) -> rx.Component:
    """Suggestions that never change, written into the page once."""
    return rx.el.datalist(*[rx.el.option(value=o) for o in options], id=list_id)
