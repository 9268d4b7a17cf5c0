"""Small labels that carry BenchMax's honesty rules: status and the declared-setup caveat."""

from __future__ import annotations

import reflex as rx

from benchmax.services.labels import DECLARED_LABEL

REVIEW_COLORS = {"awaiting": "amber", "reviewed": "green", "ranked": "iris"}


def declared_label() -> rx.Component:
    return rx.hstack(
        rx.icon("info", size=14),
        rx.text(DECLARED_LABEL, size="1"),
        color="var(--gray-11)",
        spacing="1",
        align="center",
        class_name="declared-label",
    )


def status_badge(label: rx.Var[str], color: rx.Var[str]) -> rx.Component:
    return rx.badge(
        label,
        color_scheme=color,
        variant="soft",
        size="2",  # type: ignore[arg-type]
        class_name="status-badge",
    )


def kind_chip(kind: rx.Var[str]) -> rx.Component:
    return rx.badge(kind, variant="outline", color_scheme="gray", size="1")


def kind_icon(kind: rx.Var[str], size: int) -> rx.Component:
    """The icon for an evidence kind, so a file looks the same in the wizard and on the Test."""
    return rx.icon(
        rx.match(
            kind, ("image", "image"), ("video", "film"), ("source", "file-archive"), "file-text"
        ),
        size=size,
    )
