"""After submit: where the Test stands, file by file, until it is public or needs fixing."""

from __future__ import annotations

import reflex as rx

from benchmax.components.blocks import row
from benchmax.components.layout import link_button
from benchmax.pages.submit.files import file_row, live_note
from benchmax.state.submit.draft import WizardDraftState as D
from benchmax.state.submit.files import WizardFilesState as F
from benchmax.state.submit.processing import WizardProcessingState as P
from benchmax.state.submit.wizard import WizardState as W


def _heading() -> rx.Component:
    published = P.public_url != ""
    icon = rx.icon(rx.cond(published, "circle-check", "circle-alert"), size=24)
    title = rx.cond(published, "Your Test is public", P.status_label)
    return rx.hstack(
        rx.cond(W.phase == "processing", rx.spinner(size="3"), icon),
        rx.heading(title, size="5", as_="h2", id="processing-status"),
        align="center",
        spacing="3",
    )


def _public_link() -> rx.Component:
    """The Test's address to share, with a copy button; the review is secondary news."""
    copy = rx.button(
        rx.icon("copy", size=14),
        rx.cond(P.link_copied, "Copied", "Copy link"),
        **{"size": "1", "variant": "soft", "type": "button", "id": "processing-copy-link"},
        on_click=P.copy_link,
    )
    # An active AI judge can review a Test within seconds, so the line follows what happened.
    review = rx.cond(
        P.status_label == "Awaiting review",
        " — reviewers and the AI judge may score it later; it is public already.",
        " — see its reviews on the Test page.",
    )
    return rx.vstack(
        rx.text(
            P.status_label, review, size="2", color_scheme="gray", id="processing-review-state"
        ),
        rx.hstack(
            rx.code(P.public_link, id="processing-public-url", class_name="break-all"),
            copy,
            align="center",
            wrap="wrap",
        ),
        spacing="2",
        width="100%",
    )


def _next_actions() -> tuple[rx.Component, rx.Component]:
    """Published: view it or start another. Refused: fix the draft or go to /me."""
    return (
        rx.cond(
            P.public_url != "",
            row(
                link_button(
                    "View your public Test", P.public_url, size="3", id="processing-public-link"
                ),
                rx.button(
                    "Submit another",
                    size="3",
                    variant="soft",
                    on_click=D.start_new,
                    id="processing-submit-another",
                ),
                class_name="processing-actions",
            ),
        ),
        rx.cond(
            (W.phase == "done") & (P.public_url == ""),
            row(
                link_button("Fix it now", "/submit?draft=" + W.draft_id),
                link_button("My Tests", "/me", variant="soft"),
                class_name="processing-actions",
            ),
        ),
    )


def processing_panel() -> rx.Component:
    return rx.card(
        rx.vstack(
            _heading(),
            rx.cond(P.public_url != "", _public_link()),
            rx.cond(P.status_reason != "", rx.text(P.status_reason, id="processing-reason")),
            rx.vstack(
                rx.foreach(F.files, lambda item: file_row(item, removable=False)),
                width="100%",
                spacing="2",
            ),
            *_next_actions(),
            rx.cond(
                W.phase == "processing",
                live_note(
                    "Scanning files. This page updates by itself.",
                    P.check_processing,
                    "processing-refresh",
                ),
            ),
            spacing="3",
            width="100%",
        ),
        width="100%",
        id="processing-panel",
    )
