"""Form fields shared by the filter panels of the feed and the leaderboard."""

from __future__ import annotations

from typing import Any

import reflex as rx

from benchmax.components.fields import field_label


def labelled(label: str, for_id: str, control: rx.Component) -> rx.Component:
    """A field's visible label tied to its control by id, stacked above it."""
    return rx.vstack(
        field_label(label, for_id, size="1", weight="medium"),
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


def check_label(control: rx.Component, label: str) -> rx.Component:
    """A checkbox with its text beside it, both inside one ``<label>``, so a click on the
    words ticks the box."""
    return rx.el.label(rx.hstack(control, rx.text(label, size="2"), align="center", spacing="2"))


def check_filter(prefix: str, name: str, label: str, checked: rx.Var[bool] | bool) -> rx.Component:
    """A labelled checkbox filter; checked, the form sends ``name=on``."""
    return check_label(
        rx.el.input(type="checkbox", name=name, id=f"{prefix}-{name}", default_checked=checked),
        label,
    )


def filters_summary(active: rx.Var[int], idle: str) -> rx.Component:
    """A filter panel's toggle, which says how many of its own filters are set even while it
    is closed. A search word or an order is not one of them: both sit outside the panel."""
    return rx.el.summary(
        rx.cond(active > 0, rx.fragment("Filters (", active, " active)"), idle),
        class_name="filters-summary",
    )


def select_filter(
    prefix: str,
    name: str,
    label: str,
    items: list[rx.Component],
    value: rx.Var[str],
    on_change: Any,
) -> rx.Component:
    """A labelled select; the trigger carries the ``{prefix}-{name}`` id and the form sends
    ``name``."""
    return labelled(
        label,
        f"{prefix}-{name}",
        rx.select.root(
            rx.select.trigger(id=f"{prefix}-{name}", aria_label=label, width="100%"),
            rx.select.content(*items),
            name=name,
            value=value,
            on_change=on_change,
        ),
    )


def family_select(
    prefix: str,
    families: rx.Var[list[list[str]]],
    value: rx.Var[str],
    on_change: Any,
    any_value: str,
) -> rx.Component:
    """The model-family select: "Any family", then each ``[slug, name]`` of ``families``."""
    return select_filter(
        prefix,
        "family",
        "Model family",
        [
            rx.select.item("Any family", value=any_value),
            rx.foreach(families, lambda fam: rx.select.item(fam[1], value=fam[0])),
        ],
        value,
        on_change,
    )


def filter_grid(*fields: rx.Component) -> rx.Component:
    """The fields of a filter panel: one column on a phone, up to three on a wide screen."""
    return rx.grid(
        *fields,
        columns=rx.breakpoints(initial="1", xs="2", md="3"),
        spacing="3",
        width="100%",
        padding_top="0.75rem",
    )
