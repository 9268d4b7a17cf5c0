"""``/tests/[test_id]`` — everything a reader needs to judge one Test for themselves."""

from __future__ import annotations

from typing import cast

import reflex as rx
from reflex.vars import ObjectVar

from benchmax.components.actions_panel import actions_panel, review_actions
from benchmax.components.badges import declared_label, kind_icon, status_badge
from benchmax.components.blocks import callout_box, column, list_or, muted, row, section
from benchmax.components.dates import time_ago
from benchmax.components.layout import page_shell, page_title, screen_tall
from benchmax.components.listing import code_box, evidence_image
from benchmax.components.not_found import found_or_not_found
from benchmax.components.preview import PREVIEW, preview_section
from benchmax.components.removal_banner import removal_banner
from benchmax.components.showcase import showcase_lines, try_prompt_link
from benchmax.state.detail import TestDetailState as S
from benchmax.state.views.detail import EvidenceRow, ReviewRow, TestPanel

# Reflex's stubs type a dataclass-valued state var as an array; this is the var as it is.
TEST = cast("ObjectVar[TestPanel]", S.test)


def _setup() -> rx.Component:
    def row(label: str, value: rx.Var[str], id_: str) -> rx.Component:
        return rx.data_list.item(
            rx.data_list.label(label), rx.data_list.value(rx.text(value, id=id_))
        )

    return section(
        "Declared setup",
        declared_label(),
        rx.data_list.root(
            row("Model", TEST.model, "setup-model"),
            rx.cond(TEST.catalog != "", row("Catalog entry", TEST.catalog, "setup-catalog")),
            row("Harness", TEST.harness, "setup-harness"),
            row("Reasoning", TEST.reasoning, "setup-reasoning"),
            row("Attempts", TEST.attempts, "setup-attempts"),
            # Declared, like the rest; plain text, as a reader cannot follow it anywhere.
            rx.cond(
                TEST.gateway_call_id != "",
                row("Gateway call id", TEST.gateway_call_id, "setup-gateway-call-id"),
            ),
            orientation=rx.breakpoints(initial="vertical", sm="horizontal"),
        ),
        rx.cond(
            TEST.settings != "",
            column(
                rx.text("Settings", weight="medium", size="2"), code_box(TEST.settings), spacing="3"
            ),
        ),
    )


def _file_line(item: ObjectVar[EvidenceRow], link_text: rx.Var[str] | str) -> rx.Component:
    """Name, size and either a link (the file is served) or its state chip (it is not)."""
    return row(
        kind_icon(item.kind, 16),
        rx.cond(
            item.url != "",
            rx.link(
                link_text,
                href=item.url,
                class_name="evidence-link",
                is_external=True,
                rel="noopener noreferrer",
            ),
            rx.text(item.name, size="2", class_name="break-all"),
        ),
        muted(item.size, size="1"),
        rx.cond(
            item.chip != "",
            rx.badge(
                item.chip,
                color_scheme=rx.cond(item.state == "approved", "gray", "red"),
                class_name="evidence-chip",
                white_space="normal",
            ),
        ),
    )


def _image(item: ObjectVar[EvidenceRow]) -> rx.Component:
    full_size = {"max_width": "100%", "max_height": "480px", "class_name": "evidence-image"}
    return rx.link(
        evidence_image(item.url, item.name, **full_size), href=item.url, is_external=True
    )


def _text_file(item: ObjectVar[EvidenceRow]) -> rx.Component:
    """The first part of a text file, read by the browser from the user-content origin."""
    return rx.el.details(
        rx.el.summary("Read ", item.name, " here"),
        rx.el.pre(
            id="evidence-text-" + item.id,
            class_name="evidence-text",
            custom_attrs={"data-src": item.url, "aria-live": "polite"},
        ),
        muted(id="evidence-text-" + item.id + "-note", size="1"),
        open=True,
        class_name="evidence-text-details",
        width="100%",
    )


def _evidence_item(item: ObjectVar[EvidenceRow]) -> rx.Component:
    served = item.url != ""
    return rx.card(
        column(
            rx.cond(
                served,
                rx.match(
                    item.kind,
                    ("image", _image(item)),
                    ("video", rx.video(src=item.url, controls=True, width="100%")),
                    ("text", _text_file(item)),
                    rx.fragment(),
                ),
            ),
            _file_line(item, rx.cond(item.kind == "text", "Download " + item.name, item.name)),
            spacing="3",
        ),
        width="100%",
        class_name="evidence-item",
    )


def _review_card(r: ObjectVar[ReviewRow]) -> rx.Component:
    return rx.card(
        row(
            rx.badge(r.score, "/100", size="2"),
            rx.text(r.kind, weight="medium", size="2"),
            muted(time_ago(r.created), size="1"),
            rx.cond(r.superseded, rx.badge("Superseded", color_scheme="gray")),
            rx.cond(r.corrects != "", rx.badge("Correction", color_scheme="blue")),
        ),
        rx.text(r.reasoning, size="2", white_space="pre-wrap"),
        review_actions(r),
        rx.cond(
            r.judge_href != "",
            row(
                muted(r.judge_samples, size="1"),
                rx.link("Judge card", href=r.judge_href, size="1", class_name="judge-card-link"),
            ),
        ),
        width="100%",
        class_name="review-card",
    )


def _reviews() -> rx.Component:
    none = rx.match(
        TEST.state,
        ("public", "No reviews yet. Reviews are added later and never change the submission."),
        ("removed", "No reviews: a removed Test is not open to review."),
        "No reviews: reviewing starts only after a Test goes public.",
    )
    return section(
        "Reviews",
        list_or(
            S.reviews,
            column(rx.foreach(S.reviews, _review_card), spacing="3", id="reviews"),
            muted(none, id="reviews-empty"),
        ),
    )


def _owner_notice() -> rx.Component:
    """The contributor's own non-public Test: exactly its state, why, and what to do next."""
    return rx.cond(
        S.is_owner_view,
        callout_box(
            "lock",
            rx.vstack(
                rx.callout.text(rx.text.strong("State: ", TEST.status), " — ", TEST.guidance),
                rx.cond(
                    TEST.failure != "", rx.callout.text("Reason: ", TEST.failure, id="owner-reason")
                ),
                rx.link("Go to My Tests", href="/me", id="owner-next"),
                spacing="1",
            ),
            color_scheme=rx.cond(TEST.state == "processing", "blue", "amber"),
            id="owner-notice",
        ),
    )


def _heading() -> list[rx.Component]:
    """Status, publication date (only once public), title and contributor."""
    return [
        row(
            status_badge(TEST.status, TEST.status_color),
            rx.cond(TEST.published.relative != "", muted("Published ", time_ago(TEST.published))),
            spacing="3",
        ),
        showcase_lines(),
        page_title(rx.cond(TEST.title != "", TEST.title, "Untitled Test"), id="test-title"),
        rx.text("by ", rx.link(TEST.contributor, href="/u/" + TEST.handle), size="3"),
    ]


def _prompt() -> rx.Component:
    return column(
        rx.hstack(
            rx.heading("Prompt", size="4", as_="h2"),
            rx.button(
                rx.icon("copy", size=14),
                "Copy prompt",
                size="1",
                variant="soft",
                id="copy-prompt",
                on_click=[rx.set_clipboard(TEST.prompt), rx.toast("Prompt copied")],
            ),
            justify="between",
            align="center",
            width="100%",
        ),
        code_box(TEST.prompt, "test-prompt"),
        rx.cond(
            TEST.state == "public",
            try_prompt_link("/submit?same_prompt_as=" + TEST.id),
        ),
        spacing="2",
    )


def _markdown(title: str, html: rx.Var[str], id_: str) -> rx.Component:
    """Contributor Markdown, rendered and sanitised on the server."""
    return rx.cond(
        html != "",
        section(title, rx.box(rx.html(html), class_name="markdown-body", width="100%", id=id_)),
    )


NO_FILES = "No files; the output above is the evidence."
# Said where a visitor would otherwise read that there is nothing beyond the output.
PRIVATE_SOURCE = (
    "The source ZIP is private, so it is not listed or downloadable here; its automated "
    "preview below is what it shows."
)


def _evidence() -> rx.Component:
    """The files, each viewed from the user-content origin. A private source ZIP is not one
    of them for a visitor, yet its preview (which exists only for a source) is on the page,
    so the section says why the file is missing rather than that there is none."""
    private_preview = (PREVIEW.status != "none") & S.source_private & ~S.has_source
    return section(
        "Evidence",
        rx.cond(private_preview, muted(PRIVATE_SOURCE, id="evidence-private-source")),
        list_or(
            S.evidence,
            rx.grid(
                rx.foreach(S.evidence, _evidence_item),
                columns=rx.breakpoints(initial="1", md="2"),
                align="start",
                spacing="3",
                width="100%",
            ),
            rx.cond(private_preview, rx.fragment(), muted(NO_FILES, id="evidence-none")),
        ),
        muted("Files are served from a separate origin and never run in this page.", size="1"),
    )


def _detail() -> rx.Component:
    return column(
        removal_banner(),
        _owner_notice(),
        *_heading(),
        _prompt(),
        _setup(),
        _markdown("Notes", TEST.notes_html, "test-notes"),
        _markdown("Output", S.output_html, "test-output"),
        _evidence(),
        preview_section(),
        _reviews(),
        actions_panel(),
        spacing="5",
        max_width="860px",
    )


def detail_page() -> rx.Component:
    return page_shell(screen_tall(found_or_not_found(S.loaded, S.found, _detail())))
