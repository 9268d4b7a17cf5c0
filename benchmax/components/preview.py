"""The Test page's "Automated preview" section: what BenchMax saw when it ran the site itself.

Everything the site produced (console messages) is shown as text, never as markup; images
and the recording come from the user-content origin.
"""

from __future__ import annotations

from typing import cast

import reflex as rx
from reflex.vars import ObjectVar

from benchmax.components.autorefresh import autorefresh_button
from benchmax.components.blocks import column, row
from benchmax.components.dates import time_ago
from benchmax.state.preview import TestPreviewState
from benchmax.state.views.preview import PreviewPanel

P = TestPreviewState
PREVIEW = cast("ObjectVar[PreviewPanel]", P.preview)

LABEL = "Automated preview by BenchMax — the site as BenchMax ran it, with no network"
RUNNING = "BenchMax is running this site; the preview appears here when it is done."
DETECTABLE = (
    "A page can detect that it is being previewed (a headless browser, a fixed clock, no "
    "network), so it may behave differently here than for you."
)


def _fact(label: str, value: rx.Var[str] | rx.Component | str) -> rx.Component:
    return rx.hstack(
        rx.text(label, weight="medium", size="2"),
        rx.text(value, size="2"),
        spacing="2",
        wrap="wrap",
    )


def _screenshot() -> rx.Component:
    shot = rx.image(
        src=PREVIEW.screenshot_url,
        alt="Screenshot of the site as BenchMax ran it",
        width="100%",
        max_height="420px",
        object_fit="cover",
        object_position="top",
        border="1px solid var(--gray-a6)",
        border_radius="var(--radius-2)",
        id="preview-screenshot",
    )
    return rx.dialog.root(
        rx.dialog.trigger(
            rx.button(
                shot,
                variant="ghost",
                height="auto",
                padding="0",
                width="100%",
                aria_label="Enlarge the screenshot",
                cursor="zoom-in",
            )
        ),
        rx.dialog.content(
            rx.dialog.title("Screenshot"),
            rx.image(src=PREVIEW.screenshot_url, alt="Full screenshot", width="100%"),
            rx.dialog.close(rx.button("Close", variant="soft", margin_top="0.5rem")),
            max_width="min(96vw, 1480px)",
        ),
    )


def _recording() -> rx.Component:
    return rx.cond(
        PREVIEW.video_url != "",
        rx.cond(
            PREVIEW.video_is_image,
            rx.image(src=PREVIEW.video_url, alt="Recording of the first seconds", width="100%"),
            rx.el.video(
                src=PREVIEW.video_url,
                controls=True,
                muted=True,
                width="100%",
                style={
                    "maxWidth": "560px",
                    "border": "1px solid var(--gray-a6)",
                    "borderRadius": "var(--radius-2)",
                    "background": "var(--gray-a2)",
                },
                id="preview-video",
                aria_label="Recording of the first seconds",
            ),
        ),
    )


def _console() -> rx.Component:
    return column(
        _fact("Console errors:", PREVIEW.console_error_count.to_string()),
        rx.foreach(
            PREVIEW.console_errors,
            lambda message: rx.code(
                message, size="1", white_space="pre-wrap", word_break="break-word", width="100%"
            ),
        ),
        spacing="1",
        id="preview-console",
    )


def _done() -> rx.Component:
    return column(
        rx.cond(
            PREVIEW.pictures_note != "",
            rx.callout(
                PREVIEW.pictures_note,
                icon="eye-off",
                color_scheme="amber",
                id="preview-pictures-withheld",
                width="100%",
            ),
        ),
        rx.cond(PREVIEW.screenshot_url != "", _screenshot()),
        _recording(),
        rx.text(PREVIEW.summary, size="2"),
        _fact("Load time:", PREVIEW.load_time),
        _console(),
        _fact("Accessibility:", PREVIEW.accessibility),
        _fact("Evaluator:", PREVIEW.template + " · " + PREVIEW.template_hash),
        _fact("Ran:", time_ago(PREVIEW.finished)),
        spacing="2",
        id="preview-done",
    )


def _unavailable() -> rx.Component:
    return column(
        rx.callout(
            "Automated preview unavailable: " + PREVIEW.reason,
            icon="monitor-off",
            color_scheme="gray",
            id="preview-unavailable",
            width="100%",
        ),
        rx.cond(
            PREVIEW.can_retry,
            rx.button("Retry the preview", on_click=P.retry, variant="soft", id="preview-retry"),
        ),
        rx.cond(P.preview_notice != "", rx.text(P.preview_notice, size="2")),
        spacing="2",
    )


def _pending() -> rx.Component:
    """BenchMax is still running the site: say so, and look again every few seconds."""
    refresh = autorefresh_button(
        "Refresh",
        every_seconds=3,
        on_click=P.load_preview,
        variant="ghost",
        size="1",
        id="preview-refresh",
    )
    return row(rx.spinner(size="2"), rx.text(RUNNING, size="2"), refresh, id="preview-pending")


def preview_section() -> rx.Component:
    """The section; nothing at all for a Test without a source ZIP."""
    return rx.box(
        rx.cond(
            PREVIEW.status != "none",
            column(
                rx.heading("Automated preview", size="4", as_="h2"),
                rx.text(LABEL, size="2", color_scheme="gray"),
                rx.match(
                    PREVIEW.status,
                    ("done", _done()),
                    ("pending", _pending()),
                    _unavailable(),
                ),
                rx.text(DETECTABLE, size="1", color_scheme="gray"),
                spacing="2",
                id="preview-section",
            ),
        ),
        on_mount=P.load_preview,
        width="100%",
    )
