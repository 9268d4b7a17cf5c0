"""The showcase's honesty texts and the lines a Test page shows about its rank and group."""

from __future__ import annotations

from typing import cast

import reflex as rx
from reflex.vars.object import ObjectVar

from benchmax.state.showcase_detail import TestShowcaseState as S
from benchmax.state.views.listed import ScoredView
from benchmax.state.views.showcase import ShowcaseLines

# The caveat's first sentence stays above the table on a phone; the rest moves below it.
SHOWCASE_CAVEAT_LEAD = (
    "A showcase of top-rated reviewed Tests across different prompts — not a like-for-like "
    "benchmark."
)
SHOWCASE_CAVEAT_REST = (
    "Each Test had its own prompt and its own declared setup; reviews assess the submitted "
    "evidence, not a reproduced pass@1, and contributors may have picked their best attempt. "
    "Each published snapshot never changes."
)
GROUP_CAVEAT = (
    "Same prompt, different setups — still not a controlled benchmark. Setups are declared by "
    "contributors and not verified, attempts may have been picked, and reviews assess the "
    "submitted evidence. Compare within this group only, never across groups."
)

BAND_RULE = (
    "Each score shows its 95% interval, and each rank band the places the snapshot cannot tell "
    "apart: a row ranks above another only when its interval lies entirely above the other's. "
    "The methodology explains both, with a worked example."
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


def try_prompt_link(href: rx.Var[str]) -> rx.Component:
    """ "Try this prompt with your setup": the wizard on a new draft holding only this
    prompt, so the Test it becomes joins the group."""
    return rx.link(
        rx.hstack(
            rx.icon("flask-conical", size=16, aria_hidden="true"),
            rx.text("Try this prompt with your setup"),
            spacing="1",
            align="center",
        ),
        href=href,
        id="try-prompt",
        size="2",
        weight="medium",
    )


def interval_bar(item: ObjectVar[ScoredView]) -> rx.Component:
    """The score, its interval in words, and the interval drawn on a 0-100 track (decorative:
    the words say the same)."""
    return rx.box(
        rx.text(
            rx.el.strong(item.score, class_name="board-score"),
            rx.cond(item.interval != "", rx.el.span(" (", item.interval, ")")),
            size="2",
            class_name="board-interval",
        ),
        rx.cond(
            item.interval != "",
            rx.box(
                rx.box(class_name="interval-range", left=item.bar_left, width=item.bar_width),
                rx.box(class_name="interval-mark", left=item.bar_mark),
                class_name="interval-track",
                aria_hidden="true",
            ),
        ),
    )
