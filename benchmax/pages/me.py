"""``/me`` — My Tests with plain statuses and the next action, and API tokens."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar

from benchmax.components.blocks import (
    callout_box,
    column,
    error_text,
    grow_column,
    list_or,
    message_callout,
    muted,
    notice,
    quiet_link,
    row,
)
from benchmax.components.dates import time_ago
from benchmax.components.layout import (
    link_button,
    once_loaded,
    page_shell,
    page_title,
    sign_in_prompt,
)
from benchmax.state.me import MeState as S
from benchmax.state.views.me import MyTestView, TokenView


def _action(item: ObjectVar[MyTestView]) -> rx.Component:
    return rx.match(
        item.action,
        ("resume", link_button("Resume draft", "/submit?draft=" + item.id, size="1")),
        (
            "fix",
            link_button(
                "Fix files",
                "/submit?draft=" + item.id,
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
                on_click=S.retry(item.id),
                class_name="retry-button",
            ),
        ),
        ("view", link_button("View", "/tests/" + item.id, size="1", variant="soft")),
        rx.fragment(),
    )


def _test_row(item: ObjectVar[MyTestView]) -> rx.Component:
    return rx.card(
        row(
            grow_column(
                row(
                    rx.badge(
                        item.status, color_scheme=item.color, size="2", class_name="my-status"
                    ),
                    muted(time_ago(item.updated), size="1"),
                ),
                quiet_link(rx.text(item.title, weight="medium"), href="/tests/" + item.id),
                rx.cond(item.reason != "", rx.text(item.reason, size="2", class_name="my-reason")),
                rx.cond(
                    item.expires.iso != "",
                    rx.hstack(
                        rx.icon("clock", size=12, flex_shrink="0"),
                        rx.text(
                            "Deleted with its files ",
                            time_ago(item.expires),
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
                    item.moderation != "",
                    muted("Moderation: ", item.moderation, class_name="my-moderation"),
                ),
            ),
            _action(item),
            spacing="3",
        ),
        rx.cond(item.appeal != "", _appeal(item)),
        width="100%",
        class_name="my-test",
    )


def _appeal_form(item: ObjectVar[MyTestView]) -> rx.Component:
    return rx.form(
        rx.vstack(
            rx.el.label(
                "Why should this Test be restored?", html_for="appeal-text-" + item.id,
                font_size="0.875rem", font_weight="500",
            ),
            rx.text_area(
                id="appeal-text-" + item.id, value=S.appeal_text, on_change=S.set_appeal_text,
                rows="3", width="100%", required=True, max_length=2000,
                placeholder="At least 20 characters. Never paste keys or passwords.",
            ),
            error_text(S.appeal_error, id="appeal-error"),
            rx.hstack(
                rx.button("Send appeal", type="submit", size="2", id="appeal-send-" + item.id),
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


def _appeal(item: ObjectVar[MyTestView]) -> rx.Component:
    """A removed Test: appeal once per removal; a moderator's answer shows under Moderation."""
    return rx.box(
        rx.match(
            item.appeal,
            ("open", rx.text("Appeal sent; a moderator will answer here.", size="2",
                             class_name="my-appeal-open")),
            ("answered", rx.text("Your appeal was answered; see the moderation note above.",
                                 size="2", color_scheme="gray")),
            rx.cond(
                S.appeal_test == item.id,
                _appeal_form(item),
                rx.button("Appeal this removal", size="1", variant="soft",
                          on_click=S.start_appeal(item.id), id="appeal-open-" + item.id),
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


def _curl_example() -> rx.Component:
    """The ``curl`` command, wrapped to the callout's width so no line scrolls away."""
    wrapped = {"white_space": "pre-wrap", "overflow_wrap": "anywhere"}
    return rx.el.pre(
        _curl(S.new_token),
        id="curl-example",
        class_name="curl-example",
        style=wrapped | {"font_size": "0.8rem", "margin": "0"},
    )


def _new_token() -> rx.Component:
    """The token just created, shown this once, with a copy button and a curl example."""
    shown = column(
        rx.text("Copy your new token now — it will not be shown again.", size="2"),
        row(
            rx.code(S.new_token, id="new-token", overflow_wrap="anywhere"),
            _copy_button("token", S.new_token, "Copy token"),
            spacing="3",
        ),
        rx.text("Try it: this submits a small Test as you.", size="2"),
        _curl_example(),
        row(
            _copy_button("curl", _curl(S.new_token), "Copy curl command"),
            rx.button("Done", size="1", variant="soft", on_click=S.dismiss_token),
            spacing="3",
        ),
        spacing="2",
        min_width="0",
    )
    return rx.cond(S.new_token != "", callout_box("key-round", shown, color_scheme="green"))


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
                # A suspended account may not create one (the notice at the top says why).
                disabled=~S.viewer_can_write,
            ),
            rx.button(
                "Create token", type="submit", id="token-create", disabled=~S.viewer_can_write
            ),
            width="100%",
        ),
        on_submit=lambda _form: S.create_token(),
        width="100%",
    )


def _token_row(t: ObjectVar[TokenView]) -> rx.Component:
    """One token: its name, last four characters, dates and Revoke."""
    return row(
        rx.text(t.name, weight="medium", size="2"),
        rx.code("bmx_…" + t.last_four),
        muted(
            "created ",
            time_ago(t.created),
            " · last used ",
            rx.cond(t.last_used.iso != "", time_ago(t.last_used), "never"),
            size="1",
            class_name="token-dates",
        ),
        rx.spacer(),
        rx.button(
            "Revoke",
            size="1",
            variant="soft",
            color_scheme="red",
            on_click=S.revoke_token(t.id),
        ),
        spacing="3",
        width="100%",
        class_name="token-row",
    )


def _tokens() -> rx.Component:
    return column(
        rx.heading("API tokens", size="5", as_="h2"),
        muted(
            "For harnesses and scripts: POST /api/v1/tests with "
            "“Authorization: Bearer bmx_…”. A token is shown once; we keep only its hash."
        ),
        _new_token(),
        _token_form(),
        error_text(S.token_error, id="token-error"),
        list_or(
            S.token_list,
            column(rx.foreach(S.token_list, _token_row), spacing="3"),
            muted("No tokens yet."),
        ),
        spacing="3",
    )


def me_page() -> rx.Component:
    return page_shell(
        once_loaded(
            S.loaded,
            S.signed_in,
            column(
                page_title("My Tests"),
                rx.cond(
                    ~S.viewer_can_write,
                    message_callout(
                        "Your account is suspended. You can still read your Tests here, but "
                        "you cannot submit, review, report, dispute, appeal or create API "
                        "tokens until the suspension is lifted.",
                        icon="ban",
                        color_scheme="amber",
                        id="suspended-notice",
                        role="status",
                    ),
                ),
                notice(S.action_error, "error"),
                notice(S.appeal_notice, "success", role="status", id="appeal-notice"),
                list_or(
                    S.tests,
                    column(rx.foreach(S.tests, _test_row), spacing="2"),
                    message_callout(
                        "You have no Tests yet. ",
                        rx.link("Submit your first one", href="/submit"),
                        ".",
                        icon="inbox",
                    ),
                ),
                rx.divider(),
                _tokens(),
                max_width="860px",
            ),
            sign_in_prompt("see your Tests", "/me"),
        )
    )
