"""``/me`` — My Tests with plain statuses and the next action, and API tokens."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar

from benchmax.components.layout import link_button, once_loaded, page_shell
from benchmax.state.me import MeState as S
from benchmax.state.me import MyTestView, TokenView


def _action(row: ObjectVar[MyTestView]) -> rx.Component:
    return rx.match(
        row.action,
        ("resume", link_button("Resume draft", "/submit?draft=" + row.id, size="1")),
        (
            "fix",
            link_button(
                "Fix files",
                "/submit?draft=" + row.id,
                size="1",
                color_scheme="amber",
                class_name="fix-link",
            ),
        ),
        (
            "retry",
            rx.button(
                "Retry processing",
                size="1",
                color_scheme="red",
                on_click=S.retry(row.id),
                class_name="retry-button",
            ),
        ),
        ("view", link_button("View", "/tests/" + row.id, size="1", variant="soft")),
        rx.fragment(),
    )


def _test_row(row: ObjectVar[MyTestView]) -> rx.Component:
    return rx.card(
        rx.flex(
            rx.vstack(
                rx.hstack(
                    rx.badge(row.status, color_scheme=row.color, size="2", class_name="my-status"),
                    rx.text(row.updated, size="1", color_scheme="gray"),
                    spacing="2",
                    align="center",
                ),
                rx.link(
                    rx.text(row.title, weight="medium"),
                    href="/tests/" + row.id,
                    color_scheme="gray",
                    high_contrast=True,
                ),
                rx.cond(row.reason != "", rx.text(row.reason, size="2", class_name="my-reason")),
                rx.cond(
                    row.expires != "",
                    rx.hstack(
                        rx.icon("clock", size=12, flex_shrink="0"),
                        rx.text(
                            "Deleted with its files on ",
                            row.expires,
                            " unless you edit or submit it.",
                            size="1",
                            class_name="my-expiry",
                        ),
                        spacing="1",
                        align="center",
                        color="var(--gray-11)",
                    ),
                ),
                rx.cond(
                    row.moderation != "",
                    rx.text(
                        "Moderation: ",
                        row.moderation,
                        size="2",
                        color_scheme="gray",
                        class_name="my-moderation",
                    ),
                ),
                spacing="1",
                min_width="0",
                flex="1",
            ),
            _action(row),
            spacing="3",
            align="center",
            wrap="wrap",
        ),
        rx.cond(row.appeal != "", _appeal(row)),
        width="100%",
        class_name="my-test",
    )


def _appeal_form(row: ObjectVar[MyTestView]) -> rx.Component:
    return rx.form(
        rx.vstack(
            rx.el.label(
                "Why should this Test be restored?", html_for="appeal-text-" + row.id,
                font_size="0.875rem", font_weight="500",
            ),
            rx.text_area(
                id="appeal-text-" + row.id, value=S.appeal_text, on_change=S.set_appeal_text,
                rows="3", width="100%", required=True, max_length=2000,
                placeholder="At least 20 characters. Never paste keys or passwords.",
            ),
            rx.cond(
                S.appeal_error != "",
                rx.text(S.appeal_error, color_scheme="red", size="2", role="alert",
                        id="appeal-error"),
            ),
            rx.hstack(
                rx.button("Send appeal", type="submit", size="2", id="appeal-send-" + row.id),
                rx.button("Cancel", type="button", size="2", variant="soft", color_scheme="gray",
                          on_click=S.cancel_appeal),
                wrap="wrap",
            ),
            width="100%",
            spacing="2",
        ),
        on_submit=lambda _form: S.send_appeal(),
        width="100%",
    )  # fmt: skip


def _appeal(row: ObjectVar[MyTestView]) -> rx.Component:
    """A removed Test: appeal once per removal; a moderator's answer shows under Moderation."""
    return rx.box(
        rx.match(
            row.appeal,
            ("open", rx.text("Appeal sent; a moderator will answer here.", size="2",
                             class_name="my-appeal-open")),
            ("answered", rx.text("Your appeal was answered; see the moderation note above.",
                                 size="2", color_scheme="gray")),
            rx.cond(
                S.appeal_test == row.id,
                _appeal_form(row),
                rx.button("Appeal this removal", size="1", variant="soft",
                          on_click=S.start_appeal(row.id), id="appeal-open-" + row.id),
            ),
        ),
        padding_top="0.5rem",
        width="100%",
    )  # fmt: skip


def _copy_button(what: str, text: rx.Var[str], label: str) -> rx.Component:
    """Copies in the browser; the confirmation names what was copied."""
    return rx.button(
        rx.icon(rx.cond(S.copied == what, "check", "copy"), size=14),
        rx.cond(S.copied == what, "Copied", label),
        size="1",
        variant="soft",
        on_click=[rx.set_clipboard(text), S.mark_copied(what)],
        id=f"copy-{what}",
        aria_live="polite",
    )


def _curl(token: rx.Var[str]) -> rx.Var[str]:
    """A ready-to-paste submission, assembled in the browser from the token shown once."""
    return (
        "curl -X POST "
        + S.api_origin
        + "/api/v1/tests \\\n  -H 'Authorization: Bearer "
        + token
        + "' \\\n  -F prompt='Say hi.' -F model='GPT-5' -F harness='API direct' \\\n"
        + "  -F reasoning=none -F output='hi'"
    )


def _new_token() -> rx.Component:
    """The token just created, shown this once, with a copy button and a curl example."""
    return rx.cond(
        S.new_token != "",
        rx.callout.root(
            rx.callout.icon(rx.icon("key-round")),
            rx.vstack(
                rx.text("Copy your new token now — it will not be shown again.", size="2"),
                rx.hstack(
                    rx.code(S.new_token, id="new-token", overflow_wrap="anywhere"),
                    _copy_button("token", S.new_token, "Copy token"),
                    wrap="wrap",
                    align="center",
                ),
                rx.text("Try it: this submits a small Test as you.", size="2"),
                rx.el.pre(
                    _curl(S.new_token),
                    id="curl-example",
                    class_name="curl-example",
                    style={
                        "white_space": "pre-wrap",
                        "overflow_wrap": "anywhere",
                        "font_size": "0.8rem",
                        "margin": "0",
                    },
                ),
                rx.hstack(
                    _copy_button("curl", _curl(S.new_token), "Copy curl command"),
                    rx.button("Done", size="1", variant="soft", on_click=S.dismiss_token),
                    wrap="wrap",
                ),
                spacing="2",
                width="100%",
                min_width="0",
            ),
            color_scheme="green",
            width="100%",
        ),
    )


def _token_form() -> rx.Component:
    """Name and create a token."""
    return rx.form(
        rx.hstack(
            rx.input(
                id="token-name",
                value=S.token_name,
                on_change=S.set_token_name,
                placeholder="Token name, e.g. my harness",
                max_length=80,
                aria_label="Token name",
                width="100%",
            ),
            rx.button("Create token", type="submit", id="token-create"),
            width="100%",
        ),
        on_submit=lambda _form: S.create_token(),
        width="100%",
    )


def _token_row(t: ObjectVar[TokenView]) -> rx.Component:
    """One token: its name, last four characters, dates and Revoke."""
    return rx.hstack(
        rx.text(t.name, weight="medium", size="2"),
        rx.code("bmx_…" + t.last_four),
        rx.text(
            "created ",
            t.created,
            " · last used ",
            t.last_used,
            size="1",
            color_scheme="gray",
        ),
        rx.spacer(),
        rx.button(
            "Revoke",
            size="1",
            variant="soft",
            color_scheme="red",
            on_click=S.revoke_token(t.id),
        ),
        width="100%",
        wrap="wrap",
        align="center",
        class_name="token-row",
    )


def _tokens() -> rx.Component:
    return rx.vstack(
        rx.heading("API tokens", size="5", as_="h2"),
        rx.text(
            "For harnesses and scripts: POST /api/v1/tests with "
            "“Authorization: Bearer bmx_…”. A token is shown once; we keep only its hash.",
            size="2",
            color_scheme="gray",
        ),
        _new_token(),
        _token_form(),
        rx.cond(
            S.token_error != "",
            rx.text(S.token_error, color_scheme="red", size="2", role="alert", id="token-error"),
        ),
        rx.cond(
            S.token_list.length() > 0,
            rx.vstack(
                rx.foreach(
                    S.token_list,
                    _token_row,
                ),
                width="100%",
            ),
            rx.text("No tokens yet.", size="2", color_scheme="gray"),
        ),
        spacing="3",
        width="100%",
    )


def me_page() -> rx.Component:
    return page_shell(
        once_loaded(
            S.loaded,
            S.signed_in,
            rx.vstack(
                rx.heading("My Tests", size="7"),
                rx.cond(
                    S.action_error != "",
                    rx.callout(S.action_error, color_scheme="red", icon="circle_alert"),
                ),
                rx.cond(
                    S.appeal_notice != "",
                    rx.callout(
                        S.appeal_notice,
                        color_scheme="green",
                        icon="check",
                        role="status",
                        id="appeal-notice",
                    ),
                ),
                rx.cond(
                    S.tests.length() > 0,
                    rx.vstack(rx.foreach(S.tests, _test_row), width="100%", spacing="2"),
                    rx.callout.root(
                        rx.callout.icon(rx.icon("inbox")),
                        rx.callout.text(
                            "You have no Tests yet. ",
                            rx.link("Submit your first one", href="/submit"),
                            ".",
                        ),
                        width="100%",
                    ),
                ),
                rx.divider(),
                _tokens(),
                spacing="4",
                width="100%",
                max_width="860px",
            ),
            rx.callout.root(
                rx.callout.icon(rx.icon("log-in")),
                rx.callout.text(
                    "Sign in to see your Tests. ", rx.link("Sign in", href="/sign-in?next=/me")
                ),
                width="100%",
            ),
        )
    )
