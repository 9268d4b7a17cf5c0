"""``/prompts`` and ``/prompts/[key]`` — the same prompt, tried by different setups."""

from __future__ import annotations

from typing import Any

import reflex as rx
from reflex.vars.object import ObjectVar

from benchmax.components.badges import declared_label, sample_badge
from benchmax.components.blocks import column, error_text, muted, quiet_link, row
from benchmax.components.cards import byline
from benchmax.components.dates import time_ago
from benchmax.components.fields import field_label
from benchmax.components.layout import page_intro, page_shell, page_title
from benchmax.components.listing import (
    code_box,
    list_or_empty,
    section_intro,
    thumbnail,
    when_loaded,
)
from benchmax.components.not_found import found_or_not_found
from benchmax.components.preview_figures import preview_figures
from benchmax.components.showcase import GROUP_CAVEAT, interval_bar
from benchmax.state.prompts import PromptGroupState as G
from benchmax.state.prompts import PromptsState as P
from benchmax.state.views.prompts import GroupRow, MemberView


def _group_row(
    item: ObjectVar[GroupRow], *extra: rx.Component, card_class: str = "", **link: Any
) -> rx.Component:
    """A group as a link with its size; the similar list adds its share and a join button."""
    return rx.card(
        row(rx.link(item.title, href=item.href, flex="1", min_width="0", **link), *extra),
        width="100%",
        class_name=card_class,
    )


def _largest_row(item: ObjectVar[GroupRow]) -> rx.Component:
    return _group_row(
        item,
        rx.badge(item.size, variant="soft"),
        card_class="group-row",
        weight="medium",
        class_name="card-title",
    )


def prompts_page() -> rx.Component:
    return page_shell(
        column(
            *page_intro(
                "Same prompt, different setups",
                "Prompts that two or more public Tests gave to different setups, largest "
                "group first. Prompts count as the same when they differ only in letter case, "
                "spacing, line endings or invisible characters.",
            ),
            rx.callout(GROUP_CAVEAT, icon="info", width="100%"),
            when_loaded(
                P.loaded,
                list_or_empty(
                    P.groups,
                    column(rx.foreach(P.groups, _largest_row), spacing="2", id="prompt-groups"),
                    "No prompt has been tried by two setups yet.",
                    "prompt-groups-empty",
                ),
            ),
        )
    )


def _member(item: ObjectVar[MemberView]) -> rx.Component:
    return rx.card(
        column(
            row(
                rx.cond(
                    item.place != "",
                    rx.badge("#", item.place, " in this group", variant="soft"),
                    rx.badge("Not ranked yet", variant="soft", color_scheme="gray"),
                ),
                sample_badge(item.sample),
            ),
            thumbnail(item.thumb, width="100%", height="140px"),
            quiet_link(
                rx.heading(item.title, size="3", as_="h2", class_name="card-title"),
                href=item.href,
                class_name="member-title",
            ),
            rx.text(item.setup, size="2", weight="medium", class_name="member-setup"),
            declared_label(),
            rx.text(item.attempts, size="2"),
            muted(item.kinds),
            row(
                rx.cond(
                    item.score != "",
                    rx.box(interval_bar(item), min_width="9rem", class_name="member-score"),
                ),
                rx.vstack(
                    rx.text(item.reviews, size="1"),
                    muted(item.median, size="1"),
                    rx.cond(
                        item.band != "",
                        muted("rank band ", item.band, size="1", class_name="member-band"),
                    ),
                    spacing="0",
                ),
                spacing="3",
            ),
            preview_figures(item.preview),
            byline(item.contributor, item.handle, time_ago(item.published), size="1"),
            spacing="2",
        ),
        class_name="group-member",
    )


def _similar_row(item: ObjectVar[GroupRow]) -> rx.Component:
    return _group_row(
        item,
        rx.badge(item.similarity, variant="soft"),
        rx.badge(item.size, variant="outline"),
        rx.cond(
            G.is_moderator,
            rx.button(
                "Join as the same prompt",
                size="1",
                variant="outline",
                on_click=G.join(item.key),
                class_name="join-button",
            ),
        ),
        class_name="similar-link",
    )


def _alias_reason() -> rx.Component:
    """Moderators only: the written reason a join is recorded with."""
    return rx.cond(
        G.is_moderator,
        column(
            field_label(
                "Reason for joining (kept permanently, at least 10 characters)",
                "alias-reason",
                size="1",
            ),
            rx.text_area(
                id="alias-reason",
                value=G.alias_reason,
                on_change=G.set_alias_reason,
                width="100%",
                max_length=2000,
            ),
            error_text(G.alias_error),
            spacing="3",
        ),
    )


def _similar() -> rx.Component:
    return column(
        *section_intro(
            "Similar prompts",
            "Near-duplicates (at least 80% of their five-word phrases in common). They are listed, "
            "never merged: a small change can ask for something different.",
        ),
        rx.foreach(G.similar, _similar_row),
        _alias_reason(),
        spacing="2",
        id="similar-prompts",
    )


def _group() -> rx.Component:
    return column(
        page_title("Same prompt, different setups"),
        code_box(G.prompt, "group-prompt", max_height="14rem", overflow_y="auto"),
        rx.callout(GROUP_CAVEAT, icon="info", width="100%", id="group-caveat"),
        muted(
            G.total_text,
            ". Ordered by the showcase's shrunk score within this group (",
            G.prior,
            " from this group's counted reviews); Tests without a counted review follow. Each "
            "score shows its 95% interval, and its rank band the places this group cannot tell "
            "apart.",
        ),
        rx.cond(
            G.aliases.length() > 0,
            rx.vstack(
                rx.foreach(
                    G.aliases,
                    lambda a: rx.text(
                        "Joined by a moderator with ",
                        rx.link("another prompt", href=a.href),
                        " on ",
                        a.date,
                        ": ",
                        a.reason,
                        size="2",
                    ),
                ),
                id="group-aliases",
            ),
        ),
        rx.cond(G.alias_notice != "", rx.callout(G.alias_notice, icon="check", width="100%")),
        rx.grid(
            rx.foreach(G.members, _member),
            columns=rx.breakpoints(initial="1", sm="2", md="3"),
            spacing="3",
            width="100%",
            id="group-members",
        ),
        rx.cond(G.more, rx.button("Show more", on_click=G.show_more, variant="soft", width="100%")),
        rx.cond(G.similar.length() > 0, _similar()),
    )


def prompt_group_page() -> rx.Component:
    return page_shell(found_or_not_found(G.loaded, G.found, _group()))
