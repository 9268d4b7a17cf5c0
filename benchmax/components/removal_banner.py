"""The banner moderators and owners see on a removed Test: not public, and the decision."""

from __future__ import annotations

from typing import cast

import reflex as rx
from reflex.vars import ObjectVar

from benchmax.components.dates import time_ago
from benchmax.state.detail import TestDetailState
from benchmax.state.views.removal_banner import RemovalBanner

# Reflex's stubs type a dataclass-valued state var as an array; this is the var as it is.
REMOVAL = cast("ObjectVar[RemovalBanner]", TestDetailState.removal)


def removal_banner() -> rx.Component:
    lines = [
        rx.text(rx.text.strong("Removed — not public"), id="removed-title"),
        rx.text("Reason: ", REMOVAL.reason, id="removed-reason"),
        rx.text(
            "Removed ",
            time_ago(REMOVAL.removed),
            rx.cond(REMOVAL.by != "", rx.fragment(" by ", REMOVAL.by)),
            ". Only moderators and owners can open this page; everyone else gets "
            "“not found”, and its files are not served to anyone.",
        ),
        rx.link("Back to moderation", href="/moderation", id="removed-moderation"),
    ]
    banner = rx.callout.root(
        rx.callout.icon(rx.icon("eye-off")),
        rx.vstack(*lines, spacing="1"),
        color_scheme="red",
        id="removed-banner",
        width="100%",
    )
    return rx.cond(REMOVAL.shown, banner)
