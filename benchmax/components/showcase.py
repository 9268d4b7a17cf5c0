"""The showcase's honesty texts and the lines a Test page shows about its rank and group."""

from __future__ import annotations

from typing import cast

import reflex as rx
from reflex.vars.object import ObjectVar

from benchmax.state.showcase_detail import TestShowcaseState as S
from benchmax.state.views.showcase import ShowcaseLines

SHOWCASE_CAVEAT = (
    "A showcase of top-rated reviewed Tests across different prompts — not a like-for-like "
    "benchmark. Each Test had its own prompt and its own declared setup; reviews assess the "
    "submitted evidence, not a reproduced pass@1, and contributors may have picked their best "
    "attempt. Each published snapshot never changes."
)
GROUP_CAVEAT = (
    "Same prompt, different setups — still not a controlled benchmark. Setups are declared by "
    "contributors and not verified, attempts may have been picked, and reviews assess the "
    "submitted evidence. Compare within this group only, never across groups."
)

LINES = cast("ObjectVar[ShowcaseLines]", S.showcase)


def showcase_lines() -> rx.Component:
    """ "Ranked #N in the DATE showcase" and "N other setups tried this prompt", when true."""
    return rx.flex(
        rx.cond(
            LINES.ranked.text != "",
            rx.link(
                rx.badge(
                    rx.icon("trophy", size=14),
                    LINES.ranked.text,
                    color_scheme="iris",
                    size="2",
                ),
                href=LINES.ranked.href,
                id="test-ranked",
            ),
        ),
        rx.cond(
            LINES.group.text != "",
            rx.link(
                rx.hstack(
                    rx.icon("git-compare", size=16),
                    rx.text(LINES.group.text),
                    spacing="1",
                    align="center",
                ),
                href=LINES.group.href,
                id="test-group-link",
                size="2",
            ),
        ),
        spacing="3",
        wrap="wrap",
        align="center",
    )
