"""Form fields shared by the filter panels of the feed and the leaderboard."""

from __future__ import annotations

import reflex as rx

from benchmax.components.fields import field_label


def text_filter(
    prefix: str, name: str, label: str, value: rx.Var[str], placeholder: str
) -> rx.Component:
    """A labelled free-text filter; its value travels in the URL, so it is capped at 200."""
    return rx.vstack(
        field_label(label, f"{prefix}-{name}", size="1", weight="medium"),
        rx.input(
            id=f"{prefix}-{name}",
            name=name,
            default_value=value,
            placeholder=placeholder,
            max_length=200,
            width="100%",
        ),
        spacing="1",
        width="100%",
    )


def check_filter(prefix: str, name: str, label: str, checked: rx.Var[bool] | bool) -> rx.Component:
    """A labelled checkbox filter; checked, the form sends ``name=on``."""
    return rx.el.label(
        rx.hstack(
            rx.el.input(type="checkbox", name=name, id=f"{prefix}-{name}", default_checked=checked),
            rx.text(label, size="2"),
            align="center",
            spacing="2",
        ),
    )
