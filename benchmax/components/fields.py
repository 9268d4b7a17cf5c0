"""Form labels that are really tied to their field.

A Radix text rendered ``as_="label"`` turns ``html_for`` into a CSS property, so the label
looks right and labels nothing; this one writes the ``for`` attribute itself. A required
field's visible asterisk is hidden from screen readers, which hear the control's own
``required`` state instead.
"""

from __future__ import annotations

from typing import Any

import reflex as rx


def field_label(
    text: str | rx.Var[str], field_id: str, *, required: bool = False, **props: Any
) -> rx.Component:
    marker = [rx.text.span(" *", color_scheme="red", aria_hidden="true")] if required else []
    props.setdefault("size", "2")
    return rx.text(text, *marker, as_="label", custom_attrs={"htmlFor": field_id}, **props)
