"""The page frame every screen shares: header navigation, main column, footer."""

from __future__ import annotations

from typing import Any, cast

import reflex as rx
from reflex.vars import ObjectVar

from benchmax.components.autorefresh import autorefresh_button
from benchmax.components.badges import badge_style
from benchmax.components.blocks import message_callout, quiet_link, row
from benchmax.state.nav import REFRESH_SECONDS, NavState
from benchmax.state.session import SessionState
from benchmax.state.views.nav import NavView

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
    ("Open data", "/data"),
    ("API", "/api"),
)
# Pages the API serves as plain HTML, outside the front end's router: a link to one loads
# the document rather than asking the router, which would answer with its 404.
SERVER_PAGES = ("/data", "/api", "/.well-known/security.txt")
WIDTH = "1100px"
# A link holding an icon and words keeps them on one centred line (the logo, button links).
ICON_AND_TEXT = {"display": "inline-flex", "align_items": "center", "gap": "var(--space-2)"}
# Reflex's stubs type a dataclass-valued state var as an array; this is the var as it is.
NAV = cast("ObjectVar[NavView]", NavState.view)

# The shell's own rules (merged into the app's style). A keyboard user always sees where
# focus is: Radix draws rings on its controls, and this ring covers every other element.
SHELL_STYLE = {
    ".skip-link": {"position": "absolute", "left": "-9999px"},
    ".skip-link:focus": {
        "left": "1rem",
        "top": "0.5rem",
        "z_index": "100",
        "background": "var(--color-panel-solid)",
        "color": "var(--gray-12)",
        "padding": "0.5rem 0.75rem",
        "border_radius": "var(--radius-2)",
    },
    # --focus-8 is the accent's step 11 (assets/shell.css): at least 3:1 on either theme.
    ":focus-visible": {"outline": "2px solid var(--focus-8)", "outline_offset": "2px"},
    # A tab draws its ring on its inner label; this ring on the tab itself would make two.
    ".rt-BaseTabListTrigger:focus-visible": {"outline": "none"},
    "#main:focus": {"outline": "none"},
    # A link inside a sentence is underlined, not told apart by colour alone.
    ".rt-Text .rt-Link, p .rt-Link, li .rt-Link": {"text_decoration_line": "underline"},
    **badge_style(),
    ".nav-link[aria-current='page']": {
        "text_decoration": "underline",
        "text_underline_offset": "0.3em",
        "text_decoration_thickness": "2px",
    },
}


def server_page(href: str) -> dict[str, Any]:
    """Props that make a link to one of ``SERVER_PAGES`` load the whole document."""
    return {"custom_attrs": {"reloadDocument": True}} if href in SERVER_PAGES else {}


def _nav_link(label: str, href: str, *extra: rx.Component, **props: Any) -> rx.Component:
    """A header link; ``aria-current`` marks the page the reader is on."""
    return quiet_link(
        label,
        *extra,
        href=href,
        size="3",
        weight="medium",
        underline="hover",
        class_name="nav-link",
        aria_current=rx.cond(SessionState.router.page.path == href, "page", "false"),
        **props,
    )


# (height, horizontal padding, font size) of Radix's button sizes 1-3.
_BUTTON_SIZES = {
    "1": ("var(--space-5)", "var(--space-2)", "var(--font-size-1)"),
    "2": ("var(--space-6)", "var(--space-3)", "var(--font-size-2)"),
    "3": ("var(--space-7)", "var(--space-4)", "var(--font-size-3)"),
}
# (text, background, hover background). Soft buttons use step 12 for text: step 11 on a
# tinted background falls under 4.5:1 for the warm colours (amber, yellow).
_BUTTON_VARIANTS = {
    "solid": ("var(--accent-contrast)", "var(--accent-9)", "var(--accent-10)"),
    "soft": ("var(--accent-12)", "var(--accent-a3)", "var(--accent-a4)"),
}


def link_button(
    label: str | rx.Var[str] | rx.Component,
    href: str | rx.Var[str],
    *,
    variant: str = "solid",
    size: str = "2",
    color_scheme: str = "",
    **props: Any,
) -> rx.Component:
    """A link that looks like a button: one element, one Tab stop, never a button inside a
    link (which a keyboard visits twice and a screen reader announces as two controls)."""
    height, padding, font_size = _BUTTON_SIZES[size]
    text, background, hover = _BUTTON_VARIANTS[variant]
    attrs = {"data-accent-color": color_scheme} if color_scheme else {}
    look: dict[str, Any] = {
        **ICON_AND_TEXT,
        "justify_content": "center",
        "height": height,
        "padding_x": padding,
        "font_size": font_size,
        "font_weight": "500",
        "white_space": "nowrap",
        "border_radius": "var(--radius-2)",
        "color": text,
        "background": background,
        "_hover": {"color": text, "background": hover},
    }
    # The solid look hovers like Radix's solid buttons, so one stylesheet rule darkens both in
    # the dark theme (first_paint/client/first_paint.css): step 10 under white is 4.4:1.
    classes = f"bm-link-button-{variant} {props.pop('class_name', '')}".strip()
    return rx.link(
        label, href=href, underline="none", custom_attrs=attrs, class_name=classes, **(look | props)
    )


def _role_link(label: str, href: str, count: rx.Var[int], **props: Any) -> rx.Component:
    """A staff link with how many items wait; the number is read out as "3 open"."""
    badge = rx.badge(count, rx.el.span(" open", class_name="visually-hidden"), margin_left="6px")
    return _nav_link(label, href, rx.cond(count > 0, badge), **props)


def _role_links() -> rx.Component:
    """Moderation and Operations for the people whose pages they are. The role on the client
    only decides whether to ask; the server checks again before it counts anything."""
    return rx.cond(
        NavState.staff,
        rx.fragment(
            rx.cond(
                NAV.may_moderate,
                _role_link("Moderation", "/moderation", NAV.moderation, id="nav-moderation"),
            ),
            rx.cond(
                NAV.may_operate,
                _role_link("Operations", "/operations", NAV.operations, id="nav-operations"),
            ),
            # Read as the header mounts, then again now and then: see ``state/nav``.
            rx.el.span(on_mount=NavState.load_counts, hidden=True),
            rx.el.div(
                autorefresh_button(
                    every_seconds=REFRESH_SECONDS,
                    on_click=NavState.load_counts,
                    id="nav-counts-refresh",
                ),
                hidden=True,
            ),
        ),
    )


def _account_area() -> rx.Component:
    """Submit, the account and Sign out, right of the links. Submit and Sign in are drawn
    again in the phone's row (``_phone_actions``); each copy shows at one width only."""
    wide = {"class_name": "nav-wide"}
    return rx.cond(
        SessionState.signed_in,
        row(
            link_button("Submit a Test", "/submit", id="nav-submit", **wide),
            quiet_link(
                "@",
                SessionState.viewer_handle,
                href="/me",
                id="nav-handle",
                weight="medium",
                # The visible "@handle" starts the name, so speech input ("click @ada") works.
                aria_label="@" + SessionState.viewer_handle + ", My Tests",
            ),
            rx.button(
                "Sign out",
                variant="ghost",
                size="2",
                on_click=SessionState.sign_out,
                id="nav-sign-out",
            ),
            spacing="3",
        ),
        row(
            link_button("Submit a Test", "/submit", variant="soft", **wide),
            link_button("Sign in", "/sign-in", id="nav-sign-in", **wide),
            spacing="3",
        ),
    )


def _phone_actions() -> rx.Component:
    """What stays in the phone's one header row beside the logo: Submit, and Sign in for a
    stranger. Everything else is behind the Menu button."""
    return rx.el.div(
        rx.cond(
            SessionState.signed_in,
            link_button("Submit", "/submit", id="nav-submit-phone"),
            rx.fragment(
                link_button("Submit", "/submit", variant="soft", id="nav-submit-phone"),
                link_button("Sign in", "/sign-in", id="nav-sign-in-phone"),
            ),
        ),
        class_name="nav-phone",
    )


def _menu_button() -> rx.Component:
    """The phone's disclosure button for ``#nav-menu`` (``assets/nav_menu.js`` drives it)."""
    return rx.fragment(
        rx.icon_button(
            rx.icon("menu", size=20, aria_hidden="true"),
            variant="ghost",
            size="2",
            type="button",
            aria_label="Menu",
            aria_expanded="false",
            aria_controls="nav-menu",
            id="nav-menu-button",
            class_name="nav-menu-button",
        ),
        rx.script(src="/nav_menu.js"),
    )


def _band(*children: rx.Component, **props: Any) -> rx.Component:
    """The shell's centred, wrapping row, as wide as the main column."""
    return rx.flex(*children, wrap="wrap", max_width=WIDTH, margin_x="auto", **props)


def header() -> rx.Component:
    """One row at every width: on a phone the links, the account and the theme switch sit in
    ``#nav-menu`` behind the Menu button (``assets/shell.css``), so the header stays one row
    for every role instead of wrapping Submit, or the staff links, onto rows of their own."""
    return rx.el.header(
        _band(
            quiet_link(
                rx.icon("gauge", size=22, aria_hidden="true"),
                rx.text("BenchMax", size="5", weight="bold", class_name="nav-brand-name"),
                href="/",
                underline="none",
                aria_label="BenchMax home",
                id="nav-home",
                **ICON_AND_TEXT,
            ),
            _phone_actions(),
            _menu_button(),
            rx.el.div(
                rx.el.nav(
                    row(
                        *[_nav_link(label, href) for label, href in NAV_LINKS],
                        _role_links(),
                        spacing="3",
                        row_gap="2",
                        class_name="nav-links",
                    ),
                    aria_label="Main",
                ),
                row(
                    _account_area(),
                    rx.color_mode.button(size="2", variant="ghost", aria_label="Toggle dark mode"),
                    spacing="3",
                    class_name="nav-account",
                ),
                id="nav-menu",
                class_name="nav-menu",
            ),
            align="center",
            spacing="4",
            row_gap="3",
            padding_x="1rem",
            padding_y="0.75rem",
            class_name="header-band",
        ),
        border_bottom="1px solid var(--gray-a5)",
        background="var(--color-panel-solid)",
        # Sticky only where there is room: on a phone a header that stays on screen (and
        # grows when its menu is open) would hide the focused element under it.
        position=rx.breakpoints(initial="static", sm="sticky"),
        top="0",
        z_index="10",
    )


def footer() -> rx.Component:
    return rx.el.footer(
        _band(
            rx.text(
                "BenchMax — community-run AI Tests. Setups are declared by contributors.",
                size="2",
                color="var(--gray-11)",
            ),
            rx.spacer(),
            rx.el.nav(
                rx.flex(
                    *[
                        quiet_link(label, href=href, size="2", **server_page(href))
                        for label, href in FOOTER_LINKS
                    ],
                    spacing="4",
                    wrap="wrap",
                ),
                aria_label="About BenchMax",
            ),
            spacing="3",
            padding="1rem",
        ),
        border_top="1px solid var(--gray-a5)",
        margin_top="2rem",
    )


def page_shell(*children: rx.Component) -> rx.Component:
    """Wrap a screen's content; every page calls this so navigation stays identical.

    One ``<header>``, ``<nav>``, ``<main>`` and ``<footer>`` per page (real elements: a Radix
    box's ``as_`` only becomes a CSS property). ``main`` takes focus from the skip link.
    """
    return rx.flex(
        # A plain anchor (a router link would not move focus): the browser scrolls to
        # #main and focuses it, so the next Tab lands on the page body.
        rx.html('<a class="skip-link" href="#main">Skip to content</a>'),
        header(),
        rx.el.main(
            *children,
            id="main",
            tab_index=-1,
            width="100%",
            max_width=WIDTH,
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


def sign_in_prompt(purpose: str, back_to: str | rx.Var[str], **link: Any) -> rx.Component:
    """ "Sign in to see your Tests. Sign in": what signing in is for, and a link that brings
    the reader back to ``back_to`` afterwards."""
    return message_callout(
        f"Sign in to {purpose}. ",
        rx.link("Sign in", href="/sign-in?next=" + back_to, **link),
        icon="log-in",
    )


def page_intro(
    title: str, intro: str, *, title_size: str = "7", **text_props: Any
) -> tuple[rx.Component, rx.Component]:
    """A page's title and the grey sentence under it that says what the page is for."""
    return page_title(title, size=title_size), rx.text(intro, color="var(--gray-11)", **text_props)


def screen_tall(*children: rx.Component) -> rx.Component:
    """At least a screen tall from the first frame, so the footer starts below the fold and
    never jumps when the content arrives (layout shift)."""
    return rx.box(*children, min_height="100vh")


def page_title(*children: Any, **props: Any) -> rx.Component:
    """The page's one ``<h1>`` (a Radix heading is an h1 unless told otherwise, so every other
    heading names its level)."""
    return rx.heading(*children, size=props.pop("size", "7"), as_="h1", **props)
