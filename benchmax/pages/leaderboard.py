"""``/leaderboard`` — the showcase: one sealed snapshot, what it counts, and how to check it."""

from __future__ import annotations

from typing import cast

import reflex as rx
from reflex.vars.object import ObjectVar

from benchmax.components.blocks import (
    column,
    grow_column,
    muted,
    notice,
    quiet_link,
    row,
    section,
)
from benchmax.components.cards import byline, declared_setup, more_button
from benchmax.components.filters import (
    check_filter,
    family_select,
    filter_grid,
    filters_summary,
    text_filter,
)
from benchmax.components.layout import link_button, once_loaded, page_shell, page_title
from benchmax.components.listing import list_or_empty, thumbnail
from benchmax.components.showcase import SHOWCASE_CAVEAT
from benchmax.state.leaderboard import ANY
from benchmax.state.leaderboard import LeaderboardState as S
from benchmax.state.views.leaderboard import BoardEntryView, PolicyView

POLICY = cast("ObjectVar[PolicyView]", S.policy)


def _caveat() -> rx.Component:
    return rx.callout(SHOWCASE_CAVEAT, icon="info", width="100%", id="leaderboard-caveat")


def _snapshot_select() -> rx.Component:
    return row(
        rx.text("Snapshot", size="2", weight="medium"),
        rx.select.root(
            rx.select.trigger(id="snapshot-select", aria_label="Snapshot"),
            rx.select.content(
                rx.foreach(S.snapshots, lambda snap: rx.select.item(snap[1], value=snap[0]))
            ),
            value=S.snapshot_id,
            on_change=S.select_snapshot,
        ),
    )


def _about() -> rx.Component:
    return rx.card(
        column(
            row(
                rx.heading("Snapshot of ", S.published, size="4", as_="h2", id="snapshot-date"),
                rx.cond(S.superseded, rx.badge("Superseded", color_scheme="gray")),
                rx.badge(S.row_count, " ranked Tests", variant="soft"),
            ),
            rx.text(
                POLICY.formula,
                font_family="var(--code-font-family)",
                size="2",
                id="snapshot-formula",
            ),
            rx.foreach(POLICY.rules, lambda rule: rx.text(rule, size="2")),
            muted(POLICY.version),
            muted(
                "SHA-256 of policy and rows: ", rx.code(S.sha256, class_name="break-all"), size="1"
            ),
            row(
                link_button(
                    "Download JSON",
                    S.json_href,
                    variant="soft",
                    id="download-json",
                    is_external=True,
                ),
                link_button(
                    "Download CSV",
                    S.csv_href,
                    variant="soft",
                    id="download-csv",
                    is_external=True,
                ),
                rx.link("How scores work", href="/methodology", size="2"),
                rx.link("Same-prompt comparison groups", href="/prompts", size="2"),
                spacing="3",
            ),
            _snapshot_select(),
            spacing="2",
        ),
        width="100%",
    )


def _filters() -> rx.Component:
    return rx.form(
        rx.el.details(
            filters_summary(S.has_filters, "Filter the showcase"),
            filter_grid(
                family_select("board", S.families, S.family, S.set_family, ANY),
                text_filter("board", "model", "Declared model", S.model, "e.g. gpt-5"),
                text_filter("board", "harness", "Harness", S.harness, "e.g. Claude Code"),
                text_filter("board", "reasoning", "Reasoning", S.reasoning, "none, low, high…"),
                check_filter("board", "single", "Declared single attempt only", S.single),
            ),
            rx.hstack(
                rx.button("Apply filters", type="submit", id="board-apply"),
                rx.cond(
                    S.has_filters,
                    rx.button(
                        "Clear filters", type="button", variant="ghost", on_click=S.clear_filters
                    ),
                ),
                padding_top="0.75rem",
            ),
            open=S.has_filters,
            width="100%",
        ),
        on_submit=S.apply_filters,
        width="100%",
    )


def _entry_text(item: ObjectVar[BoardEntryView]) -> rx.Component:
    """Title, declared setup with its label, contributor; only the title once removed."""
    return grow_column(
        rx.cond(
            item.href != "",
            quiet_link(
                rx.heading(item.title, size="4", as_="h3", class_name="card-title"),
                href=item.href,
                class_name="board-title",
            ),
            rx.text(item.title, color_scheme="gray", style={"font_style": "italic"}),
        ),
        rx.cond(
            item.href != "",
            rx.vstack(
                declared_setup(item),
                byline(item.contributor, item.handle, item.kinds),
                spacing="1",
            ),
        ),
    )


def _entry_score(item: ObjectVar[BoardEntryView]) -> rx.Component:
    return rx.vstack(
        rx.text(item.score, size="6", weight="bold", class_name="board-score"),
        muted(item.reviews, size="1"),
        muted("range ", item.score_range, size="1"),
        align=rx.breakpoints(initial="start", sm="end"),
        spacing="0",
        min_width="7rem",
    )


def _entry(item: ObjectVar[BoardEntryView]) -> rx.Component:
    return rx.card(
        rx.flex(
            rx.vstack(
                rx.text("#", item.place, size="6", weight="bold", class_name="board-rank"),
                align="center",
                min_width="3.5rem",
            ),
            _entry_text(item),
            _entry_score(item),
            thumbnail(
                item.thumb,
                width="96px",
                height="64px",
                display=rx.breakpoints(initial="none", md="block"),
            ),
            direction=rx.breakpoints(initial="column", sm="row"),
            spacing="4",
            align=rx.breakpoints(initial="start", sm="center"),
        ),
        width="100%",
        class_name="board-entry",
    )


def _ranking() -> rx.Component:
    return column(
        _about(),
        _filters(),
        list_or_empty(
            S.items,
            column(rx.foreach(S.items, _entry), spacing="3", id="board-rows"),
            "No ranked Test in this snapshot matches these filters.",
            "board-empty",
        ),
        more_button(S.next_cursor, S.load_more, id="board-more"),
    )


def _empty() -> rx.Component:
    """Before the first snapshot: why there is none yet, and where to look meanwhile."""
    meanwhile = row(
        link_button("Browse the feed", "/"),
        link_button("Same-prompt groups", "/prompts", variant="soft"),
        link_button("Methodology", "/methodology", variant="soft"),
        spacing="3",
    )
    why = (
        "A snapshot is published once Tests have been reviewed. Meanwhile, browse the "
        "feed, compare setups on the same prompt, or read how reviews work."
    )
    body = section(
        "No snapshot published yet",
        rx.text(why, color_scheme="gray"),
        meanwhile,
        spacing="3",
        id="leaderboard-empty",
    )
    return rx.card(body, width="100%")


def _owner_tools() -> rx.Component:
    return rx.cond(
        S.is_owner,
        row(
            rx.button(
                "Publish a new snapshot now",
                on_click=S.request_snapshot,
                id="publish-snapshot",
                variant="outline",
            ),
            rx.link("Refresh", href="/leaderboard", id="board-refresh", size="2"),
            rx.cond(S.notice != "", rx.text(S.notice, size="2", id="board-notice")),
            spacing="3",
        ),
    )


def leaderboard_page() -> rx.Component:
    return page_shell(
        column(
            page_title("Leaderboard"),
            _caveat(),
            _owner_tools(),
            notice(S.error, "warning"),
            once_loaded(S.loaded, S.snapshot_id != "", _ranking(), _empty()),
        )
    )
