"""``/models`` and ``/models/[slug]`` — the catalog, which names things and restricts nothing."""

from __future__ import annotations

from typing import Any

import reflex as rx
from reflex.vars import ObjectVar

from benchmax.components.badges import declared_label
from benchmax.components.blocks import column, list_or, muted
from benchmax.components.cards import paged_card_list
from benchmax.components.layout import page_intro, page_shell, page_title
from benchmax.components.listing import when_loaded
from benchmax.components.not_found import found_or_not_found
from benchmax.components.sort_menu import sort_menu
from benchmax.state.models import ModelDetailState as D
from benchmax.state.models import ModelsState as M
from benchmax.state.views.catalog import FamilyView


def _family_card(family: ObjectVar[FamilyView]) -> rx.Component:
    return rx.link(
        rx.card(
            rx.vstack(
                rx.heading(family.name, size="4", as_="h2"),
                muted(family.vendor),
                rx.text(family.counts, size="2", class_name="family-counts"),
                spacing="1",
            ),
            width="100%",
            class_name="family-card",
        ),
        href="/models/" + family.slug,
        underline="none",
        color_scheme="gray",
        high_contrast=True,
    )


ALL_MATCHED = "Every declared label matches the catalog so far."


def label_chip(
    href: rx.Var[str], *text: rx.Var[str] | str, variant: str = "surface"
) -> rx.Component:
    """A linked chip whose text (a declared label can be anything) wraps instead of
    widening the page."""
    return rx.link(
        rx.badge(*text, variant=variant, size="2", class_name="label-chip"),
        href=href,
        class_name="label-chip-link",
    )


def chip_row(items: rx.Var[list[Any]], chip: Any, **props: Any) -> rx.Component:
    return rx.flex(rx.foreach(items, chip), wrap="wrap", spacing="2", width="100%", **props)


def models_page() -> rx.Component:
    return page_shell(
        column(
            *page_intro(
                "Models",
                "The catalog standardises names so Tests can be grouped. It never limits "
                "what you can submit: any label is accepted and shown as declared.",
            ),
            declared_label(),
            # Until the catalog has arrived, "every label matches" would be a guess.
            when_loaded(
                M.loaded,
                column(
                    rx.grid(
                        rx.foreach(M.families, _family_card),
                        columns=rx.breakpoints(initial="1", xs="2", md="4"),
                        spacing="3",
                        width="100%",
                    ),
                    rx.heading("Declared labels not in the catalog", size="5", as_="h2"),
                    list_or(
                        M.declared,
                        chip_row(
                            M.declared,
                            lambda d: label_chip(d.href, d.label, " (", d.tests, ")"),
                            id="declared-labels",
                        ),
                        muted(ALL_MATCHED),
                    ),
                ),
            ),
        )
    )


def model_detail_page() -> rx.Component:
    versions = chip_row(
        D.models,
        lambda m: label_chip("/models/" + m.slug, m.name, " · ", m.tests, variant="soft"),
    )
    body = column(
        rx.link("← All models", href="/models", size="2"),
        page_title(D.name, id="model-name"),
        rx.text(D.subtitle, color_scheme="gray"),
        rx.cond(D.models.length() > 0, versions),
        rx.hstack(
            rx.heading("Public Tests", size="4", as_="h2"),
            sort_menu("model-sort", D.sort, D.set_sort),
            wrap="wrap",
            justify="between",
            align="center",
            width="100%",
        ),
        *paged_card_list(D.items, D.next_cursor, D.load_more, "No public Tests declare this yet."),
    )
    return page_shell(found_or_not_found(D.loaded, D.found, body))
