"""``/prompts`` and ``/prompts/[key]`` — the same prompt, tried by different setups."""

from __future__ import annotations

from typing import Any, cast

import reflex as rx
from reflex.vars.object import ObjectVar

from benchmax.components.badges import declared_label, sample_badge
from benchmax.components.blocks import (
    column,
    error_text,
    list_or,
    message_callout,
    muted,
    quiet_link,
    row,
)
from benchmax.components.cards import byline
from benchmax.components.dates import time_ago
from benchmax.components.fields import field_label
from benchmax.components.layout import page_intro, page_shell, page_title
from benchmax.components.listing import (
    code_box,
    evidence_image,
    section_intro,
    when_loaded,
)
from benchmax.components.not_found import found_or_not_found
from benchmax.components.preview_figures import preview_figures
from benchmax.components.showcase import GROUP_CAVEAT, interval_bar, try_prompt_link
from benchmax.components.sort_menu import sort_menu
from benchmax.state.prompts import PromptGroupState as G
from benchmax.state.prompts import PromptsState as P
from benchmax.state.views.prompts import CompareSide, CompareView, GroupRow, MemberView


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
                list_or(
                    P.groups,
                    column(rx.foreach(P.groups, _largest_row), spacing="2", id="prompt-groups"),
                    message_callout(
                        "No prompt has been tried by two setups yet. Open a Test from ",
                        rx.link("the feed", href="/"),
                        " and choose “Try this prompt with your setup” to start the first "
                        "comparison.",
                        icon="inbox",
                        id="prompt-groups-empty",
                    ),
                ),
            ),
        )
    )


def _output(item: ObjectVar[MemberView]) -> rx.Component:
    """The output rendered as on its Test page; a long one starts folded, and past its head
    the rest is on the Test page."""
    return rx.cond(
        item.output_html != "",
        rx.el.details(
            rx.el.summary("Output (", item.output_size, ")", class_name="member-output-summary"),
            rx.box(
                rx.html(item.output_html),
                class_name="markdown-body member-output",
                tab_index=0,
                role="region",
                aria_label="Output of " + item.title,
            ),
            rx.cond(
                item.output_cut,
                rx.link(
                    "Shortened here: read the whole output on its Test page",
                    href=item.href + "#test-output",
                    size="1",
                ),
            ),
            open=~item.output_folded,
            class_name="member-output-details",
        ),
        muted("No pasted output: the files are the evidence.", size="1"),
    )


def _images(item: ObjectVar[MemberView]) -> rx.Component:
    return rx.cond(
        item.images.length() > 0,
        rx.flex(
            rx.foreach(
                item.images,
                lambda image: rx.link(
                    evidence_image(
                        image.url,
                        "Evidence image " + image.name,
                        width="72px",
                        height="72px",
                        object_fit="cover",
                        border_radius="var(--radius-2)",
                        loading="lazy",
                    ),
                    href=image.url,
                    is_external=True,
                    rel="noopener noreferrer",
                ),
            ),
            gap="0.5rem",
            wrap="wrap",
            class_name="member-images",
        ),
    )


def _pick(item: ObjectVar[MemberView]) -> rx.Component:
    """Pick this member for a word diff; pressed while it waits for a second one."""
    picked = G.picked.contains(item.id)
    return rx.button(
        rx.icon("git-compare", size=14, aria_hidden="true"),
        rx.cond(picked, "Picked to compare", "Compare"),
        rx.el.span(" ", item.title, class_name="visually-hidden"),
        size="1",
        variant=rx.cond(picked, "solid", "outline"),
        aria_pressed=rx.cond(picked, "true", "false"),
        on_click=G.pick(item.id),
        class_name="member-pick",
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
            quiet_link(
                rx.heading(item.title, size="3", as_="h2", class_name="card-title"),
                href=item.href,
                class_name="member-title",
            ),
            rx.text(item.setup, size="2", weight="medium", class_name="member-setup"),
            declared_label(),
            rx.text(item.attempts, size="2"),
            _pick(item),
            _output(item),
            _images(item),
            muted(item.kinds, size="1"),
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


def _compare_side(label: str, side: ObjectVar[CompareSide], mark: str) -> rx.Component:
    return rx.text(
        rx.el.strong(label),
        " ",
        rx.link(side.title, href=side.href),
        " — ",
        side.setup,
        " (",
        mark,
        ")",
        size="2",
    )


def _comparison() -> rx.Component:
    """The word diff the address names, or why it names none; a hint when it names nothing."""
    view = cast("ObjectVar[CompareView]", G.comparison)
    return rx.cond(
        G.compare_error != "",
        rx.callout(
            G.compare_error,
            icon="triangle-alert",
            color_scheme="red",
            width="100%",
            id="compare-error",
            role="alert",
        ),
        rx.cond(
            G.comparing,
            column(
                rx.heading("Two outputs, word by word", size="4", as_="h2"),
                _compare_side(
                    "First:", view.before, "its words that the second lacks are struck through"
                ),
                _compare_side(
                    "Second:", view.after, "its words that the first lacks are underlined"
                ),
                rx.text(view.counts, size="2", weight="medium", id="compare-counts"),
                rx.cond(view.note != "", muted(view.note, size="1", id="compare-note")),
                rx.box(
                    rx.html(view.html),
                    class_name="word-diff",
                    id="word-diff",
                    # It scrolls: a keyboard reaches it, and a screen reader hears its name.
                    tab_index=0,
                    role="region",
                    aria_label="The two outputs, word by word",
                ),
                row(
                    rx.link("Swap the two", href=view.swap_href, size="2", id="compare-swap"),
                    rx.link(
                        "Close the comparison",
                        href="/prompts/" + G.key,
                        size="2",
                        id="compare-close",
                    ),
                    spacing="4",
                ),
                spacing="2",
                id="comparison",
                class_name="comparison",
            ),
            muted(
                "To see how two outputs differ word by word, press Compare on two setups "
                "below. The comparison gets its own address, to share or come back to.",
                id="compare-hint",
            ),
        ),
    )


def _intro() -> rx.Component:
    """What the page is and how it is ordered, in plain words (the formulas are on
    /methodology)."""
    return muted(
        G.total_text,
        " gave this prompt to different setups. The best reviewed come first: each score is "
        "pulled towards this group's average until it has several reviews (",
        G.prior_weight,
        " reviews' worth), so one generous review cannot put a Test on top. Tests without "
        "a review follow. Each score shows the range it is likely to lie in, and its rank "
        "band the places this group cannot tell apart. ",
        rx.link("How scores work", href="/methodology"),
        id="group-intro",
    )


def _aliases() -> rx.Component:
    """Moderator joins, so a reader knows why differently worded prompts share this page."""
    return rx.cond(
        G.aliases.length() > 0,
        rx.vstack(
            rx.foreach(
                G.aliases,
                lambda a: rx.text(
                    "Joined by a moderator with ",
                    rx.link("another prompt", href=a.href),
                    " ",
                    time_ago(a.joined),
                    ": ",
                    a.reason,
                    size="2",
                ),
            ),
            id="group-aliases",
        ),
    )


def _member_strip() -> rx.Component:
    """One focusable region, so keyboard users can scroll the columns sideways too."""
    return rx.box(
        rx.foreach(G.members, _member),
        id="group-members",
        class_name="member-strip",
        style={"--columns": G.columns},
        role="region",
        aria_label="Setups side by side (scroll sideways for more)",
        tab_index=0,
    )


def _group() -> rx.Component:
    return column(
        page_title(
            G.headline,
            id="group-title",
            class_name="break-anywhere",
            size=rx.breakpoints(initial="5", sm="7"),
        ),
        rx.el.details(
            rx.el.summary("Show the whole prompt", id="group-prompt-toggle"),
            code_box(G.prompt, "group-prompt", max_height="24rem", overflow_y="auto"),
            class_name="group-prompt-details",
            width="100%",
        ),
        try_prompt_link(G.try_href),
        _intro(),
        rx.callout(GROUP_CAVEAT, icon="info", width="100%", id="group-caveat"),
        _aliases(),
        rx.cond(G.alias_notice != "", rx.callout(G.alias_notice, icon="check", width="100%")),
        _comparison(),
        rx.hstack(
            muted(
                "Swipe sideways to see every setup.",
                size="1",
                class_name="phone-only",
                id="group-swipe-hint",
            ),
            sort_menu("group-sort", G.sort, G.set_sort),
            wrap="wrap",
            justify="between",
            align="center",
            width="100%",
        ),
        _member_strip(),
        rx.cond(
            G.more,
            rx.button(
                "Show more setups",
                on_click=G.show_more,
                variant="soft",
                width="100%",
                id="group-more",
            ),
        ),
        rx.cond(G.similar.length() > 0, _similar()),
    )


def prompt_group_page() -> rx.Component:
    return page_shell(found_or_not_found(G.loaded, G.found, _group()))
