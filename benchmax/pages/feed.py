"""``/`` — the public feed of Tests, newest first, with filters and cursor pagination."""

from __future__ import annotations

import reflex as rx

from benchmax.components.cards import card_list, more_button
from benchmax.components.filters import check_filter, text_filter
from benchmax.components.layout import page_intro, page_shell
from benchmax.services.submissions import REASONING_HINT
from benchmax.state.feed import ANY, FeedState

STATUS_OPTIONS = (
    (ANY, "Any status"),
    ("awaiting", "Awaiting review"),
    ("reviewed", "Reviewed"),
    ("ranked", "Ranked"),
)


def _select_filter(
    name: str,
    label: str,
    items: list[rx.Component],
    value: rx.Var[str],
    on_change: rx.EventHandler,
) -> rx.Component:
    """A labelled select of the filter form; the trigger carries the ``filter-`` id."""
    return rx.vstack(
        rx.text(label, size="1", weight="medium"),
        rx.select.root(
            rx.select.trigger(id=f"filter-{name}", aria_label=label, width="100%"),
            rx.select.content(*items),
            name=name,
            value=value,
            on_change=on_change,
        ),
        spacing="1",
        width="100%",
    )


def _family_select() -> rx.Component:
    return _select_filter(
        "family",
        "Model family",
        [
            rx.select.item("Any family", value=ANY),
            rx.foreach(FeedState.families, lambda fam: rx.select.item(fam[1], value=fam[0])),
        ],
        FeedState.family,
        FeedState.set_family,
    )


def _status_select() -> rx.Component:
    return _select_filter(
        "status",
        "Status",
        [rx.select.item(label, value=value) for value, label in STATUS_OPTIONS],
        FeedState.status,
        FeedState.set_status,
    )


def _filter_grid() -> rx.Component:
    return rx.grid(
        _family_select(),
        text_filter("filter", "model", "Declared model", FeedState.model, "e.g. sonnet 4.5"),
        text_filter("filter", "harness", "Harness", FeedState.harness, "e.g. Claude Code"),
        text_filter("filter", "reasoning", "Reasoning", FeedState.reasoning, REASONING_HINT),
        text_filter("filter", "contributor", "Contributor", FeedState.contributor, "handle"),
        _status_select(),
        check_filter("filter", "compare", "Prompts with 2+ setups", FeedState.compare != ""),
        columns=rx.breakpoints(initial="1", xs="2", md="3"),
        spacing="3",
        width="100%",
        padding_top="0.75rem",
    )


def filters() -> rx.Component:
    return rx.form(
        rx.vstack(
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
                ),
                rx.button("Search", type="submit", size="3", id="filter-apply"),
                width="100%",
            ),
            rx.el.details(
                rx.el.summary(
                    rx.cond(FeedState.has_filters, "Filters (active)", "More filters"),
                    class_name="filters-summary",
                ),
                _filter_grid(),
                open=FeedState.has_filters,
                width="100%",
            ),
            rx.cond(
                FeedState.has_filters,
                rx.button(
                    "Clear filters",
                    type="button",
                    variant="ghost",
                    on_click=FeedState.clear_filters,
                    id="filter-clear",
                ),
            ),
            spacing="3",
            width="100%",
        ),
        on_submit=FeedState.apply_filters,
        width="100%",
        id="feed-filters",
    )


def empty_state() -> rx.Component:
    return rx.callout(
        rx.cond(
            FeedState.has_filters,
            rx.text(
                "No public Tests match these filters. Try fewer filters or ",
                rx.link("clear them", href="/"),
                ".",
            ),
            rx.text(
                "No Tests have been published yet. ",
                rx.link("Submit the first one", href="/submit"),
                " — it goes public as soon as the safety scan passes.",
            ),
        ),
        icon="inbox",
        id="feed-empty",
        width="100%",
    )


def feed_page() -> rx.Component:
    return page_shell(
        rx.vstack(
            *page_intro(
                "What AI models really did",
                "Community-run AI Tests: one prompt, the declared setup, and the evidence. "
                "Newest first. Reviews come later and never gate publication.",
            ),
            filters(),
            rx.cond(
                FeedState.error != "",
                rx.callout(FeedState.error, color_scheme="amber", icon="triangle_alert"),
            ),
            rx.cond(
                FeedState.loaded,
                rx.cond(FeedState.items.length() > 0, card_list(FeedState.items), empty_state()),
                rx.center(rx.spinner(size="3"), width="100%", padding="2rem"),
            ),
            more_button(FeedState.next_cursor, FeedState.load_more, id="feed-more"),
            spacing="4",
            width="100%",
        )
    )
