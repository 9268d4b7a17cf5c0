"""``/leaderboard`` — the showcase: one sealed snapshot, what it counts, and how to check it."""

from __future__ import annotations

from typing import cast

import reflex as rx
from reflex.vars.object import ObjectVar

from benchmax.components.blocks import (
    column,
    muted,
    notice,
    quiet_link,
    row,
    section,
)
from benchmax.components.cards import more_button
from benchmax.components.dates import time_ago
from benchmax.components.filters import (
    check_filter,
    family_select,
    filter_grid,
    filters_summary,
    text_filter,
)
from benchmax.components.layout import link_button, once_loaded, page_shell, page_title
from benchmax.components.listing import list_or_empty
from benchmax.components.showcase import (
    BAND_RULE,
    SHOWCASE_CAVEAT_LEAD,
    SHOWCASE_CAVEAT_REST,
    interval_bar,
)
from benchmax.services.dates import Stamp
from benchmax.services.labels import DECLARED_LABEL
from benchmax.state.leaderboard import ANY
from benchmax.state.leaderboard import LeaderboardState as S
from benchmax.state.views.leaderboard import BoardEntryView, PolicyView, SnapshotOption

POLICY = cast("ObjectVar[PolicyView]", S.policy)
PUBLISHED = cast("ObjectVar[Stamp]", S.published)


def _caveat() -> rx.Component:
    return rx.callout(
        rx.fragment(
            SHOWCASE_CAVEAT_LEAD, rx.el.span(" ", SHOWCASE_CAVEAT_REST, class_name="wide-only")
        ),
        icon="info",
        width="100%",
        id="leaderboard-caveat",
    )


def _snapshot_option(snap: ObjectVar[SnapshotOption]) -> rx.Component:
    return rx.select.item(
        time_ago(snap.published), rx.cond(snap.latest, " (latest)", ""), value=snap.id
    )


def _snapshot_select() -> rx.Component:
    return row(
        rx.text("Snapshot", size="2", weight="medium"),
        rx.select.root(
            rx.select.trigger(id="snapshot-select", aria_label="Snapshot"),
            rx.select.content(rx.foreach(S.snapshots, _snapshot_option)),
            value=S.snapshot_id,
            on_change=S.select_snapshot,
        ),
    )


def _seal() -> rx.Component:
    """The hash, the signature and the downloads: what a reader checks a copy against."""
    return rx.fragment(
        muted("SHA-256 of policy and rows: ", rx.code(S.sha256, class_name="break-all"), size="1"),
        rx.cond(
            S.signature != "",
            muted(
                "Signed (Ed25519) by the key with fingerprint ",
                rx.code(S.key_fingerprint, class_name="break-all", id="snapshot-key"),
                "; signature ",
                rx.code(S.signature, class_name="break-all"),
                size="1",
            ),
        ),
        row(
            link_button(
                "Download JSON", S.json_href, variant="soft", id="download-json", is_external=True
            ),
            link_button(
                "Download CSV", S.csv_href, variant="soft", id="download-csv", is_external=True
            ),
            rx.link("How scores work", href="/methodology", size="2"),
            rx.link("Public signing key", href="/methodology#signing-key", size="2"),
            rx.link("Same-prompt comparison groups", href="/prompts", size="2"),
            spacing="3",
        ),
    )


def _about() -> rx.Component:
    """How scores work, the policy, the seal and the downloads: below the table, and a
    disclosure on a phone (on wider screens CSS keeps it open and hides its summary)."""
    return rx.el.details(
        rx.el.summary("How scores work, the seal and downloads", class_name="board-about-summary"),
        rx.card(
            column(
                rx.heading("How scores work", size="4", as_="h2"),
                rx.text(SHOWCASE_CAVEAT_REST, size="2", class_name="phone-only"),
                rx.text(
                    POLICY.formula,
                    font_family="var(--code-font-family)",
                    size="2",
                    id="snapshot-formula",
                ),
                rx.foreach(POLICY.rules, lambda rule: rx.text(rule, size="2")),
                rx.text(BAND_RULE, size="2"),
                muted(POLICY.version, ", cutoff ", time_ago(POLICY.cutoff), "."),
                _seal(),
                _snapshot_select(),
                spacing="2",
            ),
            width="100%",
        ),
        class_name="board-about",
        id="board-about",
        width="100%",
    )


def _filters() -> rx.Component:
    return rx.form(
        rx.el.details(
            filters_summary(S.filter_count, "Filter the showcase"),
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


def _cell(label: str, *children: rx.Component, **props: object) -> rx.Component:
    """A table cell; ``data-label`` names it where a phone stacks the row into a card."""
    return rx.el.td(*children, custom_attrs={"data-label": label}, **props)


def _entry(item: ObjectVar[BoardEntryView]) -> rx.Component:
    present = item.href != ""
    return rx.el.tr(
        _cell("Rank", rx.el.strong(item.band, class_name="board-rank"), class_name="board-band"),
        _cell(
            "Test",
            rx.cond(
                present,
                quiet_link(item.title, href=item.href, class_name="board-title"),
                rx.text(item.title, color_scheme="gray", style={"font_style": "italic"}),
            ),
            rx.cond(present, muted(item.attempts, size="1")),
            class_name="board-test",
        ),
        _cell(
            "Model",
            rx.el.span(item.model, title=item.declared, class_name="board-model"),
            class_name="board-model-cell",
        ),
        _cell("Harness", item.harness),
        _cell("Score (95% interval)", interval_bar(item), class_name="board-score-cell"),
        _cell(
            "Reviews",
            rx.text(item.reviews, size="2"),
            rx.cond(item.score_range != "", muted(item.score_range, size="1")),
        ),
        _cell(
            "Contributor",
            rx.cond(present, quiet_link(item.contributor, href="/u/" + item.handle)),
        ),
        class_name="board-entry",
    )


def _sort_links() -> rx.Component:
    """Links, not a menu: each order is a URL, reached by Tab and followed by Enter."""
    return rx.el.nav(
        rx.text("Sort by", size="2", weight="medium"),
        rx.foreach(
            S.sort_links,
            lambda link: rx.link(
                link[0],
                href=link[1],
                size="2",
                aria_current=rx.cond(link[2] == "true", "true", "false"),
                class_name="sort-link",
            ),
        ),
        aria_label="Sort the leaderboard",
        class_name="board-sort",
        id="board-sort",
    )


# Each column's heading, and the order (URL value, direction) that sorts by it, if any.
HEADINGS = (
    ("Rank", "rank", "ascending"),
    ("Test", "", ""),
    ("Model", "model", "ascending"),
    ("Harness", "", ""),
    ("Score (95% interval)", "score", "ascending"),
    ("Reviews", "reviews", "descending"),
    ("Contributor", "", ""),
)


def _heading(text: str, sort: str, direction: str) -> rx.Component:
    """A column heading that tells assistive technology when the rows are sorted by it."""
    if not sort:
        return rx.el.th(text, scope="col")
    return rx.el.th(
        text,
        scope="col",
        custom_attrs={"aria-sort": rx.cond(S.sort == sort, direction, "none")},
    )


def _table() -> rx.Component:
    return rx.el.table(
        rx.el.caption(
            "Rank band: the places a row could hold given the 95% intervals. Model and "
            f"harness: {DECLARED_LABEL}.",
            class_name="board-caption",
        ),
        rx.el.thead(rx.el.tr(*[_heading(*heading) for heading in HEADINGS])),
        rx.el.tbody(rx.foreach(S.items, _entry)),
        class_name="board-table",
        id="board-rows",
    )


def _ranking() -> rx.Component:
    return column(
        row(
            rx.heading(
                S.row_count,
                " · snapshot published ",
                time_ago(PUBLISHED),
                size="3",
                as_="h2",
                id="snapshot-date",
            ),
            rx.cond(S.superseded, rx.badge("Superseded", color_scheme="gray")),
            spacing="3",
        ),
        _filters(),
        _sort_links(),
        rx.cond(S.slice_note != "", muted(S.slice_note, size="1", id="board-slice-note")),
        list_or_empty(
            S.items,
            _table(),
            "No ranked Test in this snapshot matches these filters.",
            "board-empty",
        ),
        more_button(S.next_cursor, S.load_more, id="board-more"),
        _about(),
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
