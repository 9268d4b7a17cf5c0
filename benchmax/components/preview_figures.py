"""A Test card's automated-preview figures, so a comparison group reads side by side: the
screenshot, load time, console errors and accessibility, or one plain line when there is
nothing to compare."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar

from benchmax.components.listing import evidence_image
from benchmax.services.preview.view import PreviewView


def _line(value: rx.Var[str], class_name: str) -> rx.Component:
    return rx.text(value, size="1", class_name=class_name)


def preview_figures(figures: ObjectVar[PreviewView]) -> rx.Component:
    return rx.box(
        rx.text("Automated preview", size="1", weight="medium"),
        rx.match(
            figures.status,
            (
                "done",
                rx.vstack(
                    rx.cond(
                        figures.screenshot_url != "",
                        rx.link(
                            evidence_image(
                                figures.screenshot_url,
                                "Screenshot of the automated preview",
                                width="100%",
                                max_height="160px",
                                object_fit="cover",
                                object_position="top",
                                border_radius="var(--radius-2)",
                                loading="lazy",
                                class_name="preview-shot",
                            ),
                            href=figures.screenshot_url,
                            is_external=True,
                            rel="noopener noreferrer",
                        ),
                    ),
                    _line("Load time " + figures.load_time, "preview-load"),
                    _line(
                        "Console errors: " + figures.console_error_count.to_string(),
                        "preview-errors",
                    ),
                    _line("Accessibility: " + figures.accessibility, "preview-a11y"),
                    spacing="0",
                ),
            ),
            ("pending", rx.text("running…", size="1", color_scheme="gray")),
            (
                "unavailable",
                rx.text("unavailable: " + figures.reason, size="1", color_scheme="gray"),
            ),
            rx.text("no preview", size="1", color_scheme="gray"),
        ),
        border_top="1px solid var(--gray-a5)",
        padding_top="0.5rem",
        width="100%",
        class_name="member-preview",
    )
