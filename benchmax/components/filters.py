"""Form fields shared by the filter panels of the feed and the leaderboard."""

from __future__ import annotations

from typing import Any

import reflex as rx


def labelled(label: str, for_id: str, control: rx.Component) -> rx.Component:
    """A field's visible label tied to its control by id, stacked above it."""
    return rx.vstack(
        rx.text(label, as_="label", html_for=for_id, size="1", weight="medium"),
        control,
        spacing="1",
        width="100%",
    )


def text_filter(
    prefix: str, name: str, label: str, value: rx.Var[str], placeholder: str, **props: Any
) -> rx.Component:
    """A labelled free-text filter; its value travels in the URL, so it is capped at 200.
    ``props`` go to the input (the feed passes an ``on_change`` that applies it)."""
    return labelled(
        label,
        f"{prefix}-{name}",
        rx.input(
            id=f"{prefix}-{name}",
            name=name,
            default_value=value,
            placeholder=placeholder,
            max_length=200,
            width="100%",
            **props,
        ),
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
