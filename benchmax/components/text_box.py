"""A multi-line text box with its visible label, the way every form on the site asks for a
paragraph (a review's reasoning, a report's details, a pasted snapshot file)."""

from __future__ import annotations

from typing import Any

import reflex as rx

from benchmax.components.fields import field_label


def labelled_text_box(
    label: str, field_id: str, value: rx.Var[str], on_change: Any, *, rows: int = 3, **props: Any
) -> tuple[rx.Component, rx.Component]:
    """The label (tied to the box by ``field_id``) and the box, as wide as the form; the
    caller places both, so they stack like the form's other fields."""
    box = rx.text_area(
        id=field_id, value=value, on_change=on_change, rows=str(rows), width="100%", **props
    )
    return field_label(label, field_id), box
