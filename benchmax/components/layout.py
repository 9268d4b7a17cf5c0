"""The page frame every screen shares: header navigation, main column, footer."""

from __future__ import annotations

from typing import Any

import reflex as rx

from benchmax.state.session import SessionState

NAV_LINKS = (
    ("Feed", "/"),
    ("Leaderboard", "/leaderboard"),
    ("Prompts", "/prompts"),
    ("Models", "/models"),
)
FOOTER_LINKS = (
    ("Methodology", "/methodology"),
    ("Privacy", "/privacy"),
    ("Terms", "/terms"),
    ("Security", "/security"),
)


def _nav_link(label: str, href: str) -> rx.Component:
    return rx.link(
        label,
        href=href,
        size="3",
        weight="medium",
        color_scheme="gray",
        high_contrast=True,
        underline="hover",
    )


def _account_area() -> rx.Component:
    return rx.cond(
        SessionState.signed_in,
        rx.hstack(
            rx.link(
                rx.button("Submit a Test", size="2"),
                href="/submit",
                id="nav-submit",
                display=rx.breakpoints(initial="none", sm="block"),
            ),
            rx.link(
                rx.text("@", SessionState.viewer_handle, weight="medium"),
                href="/me",
                id="nav-handle",
                color_scheme="gray",
                high_contrast=True,
            ),
            rx.button(
                "Sign out",
                variant="ghost",
                size="2",
                on_click=SessionState.sign_out,
                id="nav-sign-out",
            ),
            align="center",
            spacing="3",
        ),
        rx.hstack(
            rx.link(
                rx.button("Submit a Test", size="2", variant="soft"),
                href="/submit",
                display=rx.breakpoints(initial="none", sm="block"),
            ),
            rx.link(rx.button("Sign in", size="2"), href="/sign-in", id="nav-sign-in"),
            spacing="3",
        ),
    )


def header() -> rx.Component:
    return rx.box(
        rx.flex(
            rx.link(
                rx.hstack(
                    rx.icon("gauge", size=22),
                    rx.heading("BenchMax", size="5", weight="bold"),
                    align="center",
                    spacing="2",
                ),
                href="/",
                underline="none",
                color_scheme="gray",
                high_contrast=True,
                aria_label="BenchMax home",
            ),
            rx.flex(
                *[_nav_link(label, href) for label, href in NAV_LINKS],
                rx.box(
                    _nav_link("Submit", "/submit"),
                    display=rx.breakpoints(initial="block", sm="none"),
                ),
                spacing="4",
                wrap="wrap",
                as_="nav",
                aria_label="Main",
                order=rx.breakpoints(initial="3", sm="0"),
                width=rx.breakpoints(initial="100%", sm="auto"),
            ),
            rx.spacer(),
            rx.flex(
                _account_area(),
                rx.color_mode.button(size="2", variant="ghost", aria_label="Toggle dark mode"),
                align="center",
                spacing="3",
                wrap="wrap",
            ),
            align="center",
            spacing="5",
            wrap="wrap",
            row_gap="3",
            max_width="1100px",
            margin_x="auto",
            padding_x="1rem",
            padding_y="0.75rem",
        ),
        as_="header",
        border_bottom="1px solid var(--gray-a5)",
        background="var(--color-panel-solid)",
        position="sticky",
        top="0",
        z_index="10",
    )


def footer() -> rx.Component:
    return rx.box(
        rx.flex(
            rx.text(
                "BenchMax — community-run AI Tests. Setups are declared by contributors.",
                size="2",
                color_scheme="gray",
            ),
            rx.spacer(),
            rx.flex(
                *[
                    rx.link(label, href=href, size="2", color_scheme="gray")
                    for label, href in FOOTER_LINKS
                ],
                spacing="4",
                wrap="wrap",
            ),
            wrap="wrap",
            spacing="3",
            max_width="1100px",
            margin_x="auto",
            padding="1rem",
        ),
        as_="footer",
        border_top="1px solid var(--gray-a5)",
        margin_top="2rem",
    )


def page_shell(*children: rx.Component) -> rx.Component:
    """Wrap a screen's content; every page calls this so navigation stays identical."""
    return rx.flex(
        rx.el.a("Skip to content", href="#main", class_name="skip-link"),
        header(),
        rx.box(
            *children,
            as_="main",
            id="main",
            width="100%",
            max_width="1100px",
            margin_x="auto",
            padding_x="1rem",
            padding_y="1.5rem",
            flex="1",
        ),
        footer(),
        direction="column",
        min_height="100vh",
    )


def once_loaded(
    loaded: rx.Var[bool],
    allowed: rx.Var[bool],
    body: rx.Component,
    otherwise: rx.Component,
) -> rx.Component:
    """A spinner until the state has loaded, then ``body`` — or ``otherwise`` when not allowed.

    Pages gate on what the server said (found, signed in, a role), never on a guess made
    before the load event answered, so a refusal never flashes over a page that exists.
    """
    return rx.cond(
        loaded,
        rx.cond(allowed, body, otherwise),
        rx.center(rx.spinner(size="3"), padding="4rem"),
    )


def page_intro(title: str, intro: str, **text_props: Any) -> tuple[rx.Component, rx.Component]:
    """A page's title and the grey sentence under it that says what the page is for."""
    return rx.heading(title, size="7"), rx.text(intro, color_scheme="gray", **text_props)
