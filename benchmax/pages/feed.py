"""``/`` — the public feed of Tests: filters that apply as they change, a results count, a
choice of order, and cursor pagination whose depth is kept in the URL."""

from __future__ import annotations

from typing import Any

import reflex as rx

from benchmax.components.blocks import column, list_or, message_callout, notice, row
from benchmax.components.cards import card_list, card_skeletons, more_button
from benchmax.components.filters import (
    check_label,
    family_select,
    filter_grid,
    filters_summary,
    select_filter,
    text_filter,
)
from benchmax.components.layout import page_intro, page_shell
from benchmax.components.sort_menu import sort_menu
from benchmax.presentation.texts import FEED_INTRO, FEED_TITLE, HOW_IT_WORKS
from benchmax.services.feed_order import RELEVANCE, SORT_LABELS
from benchmax.services.submissions import REASONING_HINT
from benchmax.state.feed import ANY, FeedState

STATUS_OPTIONS = (
    (ANY, "Any status"),
    ("awaiting", "Awaiting review"),
    ("reviewed", "Reviewed"),
    ("ranked", "Ranked"),
)
# A row whose ends are pushed apart: a heading and its button, the count and the sort menu.
SPREAD: dict[str, Any] = {"justify": "between", "align": "center", "width": "100%"}
EMPTY = {
    True: ("No public Tests match these filters. Try fewer filters or ", "clear them", "/", "."),
    False: (
        "No Tests have been published yet. ",
        "Submit the first one",
        "/submit",
        " — it goes public as soon as the safety scan passes.",
    ),
}
GENERATION = {"data-generation": FeedState.form_key}
CLOSE_PANEL = "document.getElementById('feed-filter-panel').open=false"
# Text fields apply once typing pauses this long, so a word is one query, not one per letter.
TYPING_PAUSE_MS = 450


def sort_select() -> rx.Component:
    """The order menu; "Best match" exists only while there is a search to match."""
    best_match = rx.select.item(SORT_LABELS[RELEVANCE], value=RELEVANCE)
    return sort_menu(
        "feed-sort", FeedState.sort_value, _picked("sort"), rx.cond(FeedState.q != "", best_match)
    )


def _filter_grid() -> rx.Component:
    return filter_grid(
        family_select("filter", FeedState.families, FeedState.family, _picked("family"), ANY),
        *[
            text_filter(
                "filter", name, label, getattr(FeedState, name), hint, on_change=_typed(name)
            )
            for name, label, hint in (
                ("model", "Declared model", "e.g. sonnet 4.5"),
                ("harness", "Harness", "e.g. Claude Code"),
                ("reasoning", "Reasoning", REASONING_HINT),
                ("contributor", "Contributor", "handle"),
            )
        ],
        select_filter(
            "filter",
            "status",
            "Status",
            [rx.select.item(label, value=value) for value, label in STATUS_OPTIONS],
            FeedState.status,
            _picked("status"),
        ),
        check_label(
            rx.checkbox(
                id="filter-compare",
                aria_label="Prompts with 2+ setups",
                checked=FeedState.compare != "",
                on_change=FeedState.set_compare,
            ),
            "Prompts with 2+ setups",
        ),
    )


def _picked(name: str) -> Any:
    """Apply a select's choice at once."""
    return lambda choice: FeedState.set_filter(name, choice)


def _typed(name: str) -> Any:
    """Apply a text filter once typing pauses. The event names the form generation the field
    belongs to, so a pause that ends after "Clear" cannot bring the cleared text back."""
    generation = rx.Var("_e?.target?.dataset?.generation").to(str)
    return lambda text: FeedState.set_filter(name, text, generation).debounce(TYPING_PAUSE_MS)


def _clear(element_id: str, **props: Any) -> rx.Component:
    return rx.button(
        "Clear filters",
        type="button",
        on_click=FeedState.clear_filters,
        id=element_id,
        disabled=~FeedState.has_filters,
        **props,
    )


def _panel_actions() -> rx.Component:
    """Apply and Clear for phones, stuck to the bottom of the screen under the thumb while
    the panel is open. Filters already apply as they change, so "Show" only closes the
    panel; wider screens have neither (Clear sits by the count)."""
    return rx.hstack(
        rx.button(
            "Show ",
            FeedState.count,
            type="submit",
            size="3",
            id="filter-apply-phone",
            # The form's submit applies the typed text; this closes the panel over the list.
            on_click=rx.call_script(CLOSE_PANEL),
            flex="1",
        ),
        _clear("filter-clear-panel", variant="soft", color_scheme="gray", size="3"),
        class_name="filter-actions phone-only",
        width="100%",
        spacing="2",
    )


def filters() -> rx.Component:
    return rx.form(
        column(
            rx.hstack(
                rx.input(
                    rx.input.slot(rx.icon("search", size=16)),
                    id="filter-q",
                    name="q",
                    default_value=FeedState.q,
                    placeholder="Search prompts and titles",
                    aria_label="Search",
                    max_length=200,
                    width="100%",
                    size="3",
                    type="search",
                    on_change=_typed("q"),
                    custom_attrs=GENERATION,
                ),
                rx.button("Search", type="submit", size="3", id="filter-apply"),
                width="100%",
            ),
            rx.el.details(
                filters_summary(FeedState.filter_count, "More filters"),
                _filter_grid(),
                _panel_actions(),
                open=FeedState.panel_open,
                id="feed-filter-panel",
                width="100%",
            ),
            spacing="3",
        ),
        on_submit=FeedState.apply_filters,
        reset_on_submit=False,
        width="100%",
        id="feed-filters",
        key=FeedState.form_key,
    )


def how_it_works() -> rx.Component:
    """Three steps for someone who has never seen a Test, until they dismiss it."""
    steps = [
        rx.hstack(
            rx.icon(icon, size=18, aria_hidden="true", flex_shrink="0"),
            rx.text(rx.text.strong(f"{n}. {name}"), " — ", what, size="2"),
            spacing="2",
            flex="1",
            min_width="12rem",
        )
        for n, (icon, name, what) in enumerate(HOW_IT_WORKS, 1)
    ]
    return rx.cond(
        FeedState.how_hidden == "",
        rx.box(
            rx.hstack(
                rx.heading("How a Test works", size="3", as_="h2"),
                rx.icon_button(
                    rx.icon("x", size=16),
                    variant="ghost",
                    color_scheme="gray",
                    aria_label="Dismiss how a Test works",
                    on_click=FeedState.hide_how,
                    id="how-dismiss",
                ),
                **SPREAD,
            ),
            row(*steps, spacing="3", align="start", padding_top="0.5rem"),
            id="how-it-works",
            class_name="how-strip",
            width="100%",
        ),
    )


def empty_state() -> rx.Component:
    def say(before: str, link: str, href: str, after: str) -> rx.Component:
        return rx.fragment(before, rx.link(link, href=href), after)

    return message_callout(
        rx.cond(FeedState.has_filters, say(*EMPTY[True]), say(*EMPTY[False])),
        icon="inbox",
        id="feed-empty",
    )


def _results() -> rx.Component:
    return column(
        rx.hstack(
            rx.text(
                rx.cond(FeedState.loaded, FeedState.count, "Loading Tests…"),
                id="feed-count",
                size="2",
                weight="medium",
                aria_live="polite",
            ),
            row(
                rx.cond(FeedState.has_filters, _clear("filter-clear", variant="ghost")),
                sort_select(),
                spacing="3",
            ),
            wrap="wrap",
            **SPREAD,
        ),
        notice(FeedState.error, "warning", id="feed-error"),
        rx.cond(
            FeedState.loaded,
            list_or(FeedState.items, card_list(FeedState.items), empty_state()),
            card_skeletons(3),
        ),
        more_button(FeedState.next_cursor, FeedState.load_more, id="feed-more"),
        spacing="3",
    )


def feed_page() -> rx.Component:
    return page_shell(
        column(
            *page_intro(FEED_TITLE, FEED_INTRO),
            how_it_works(),
            filters(),
            _results(),
        )
    )
