"""``/moderation`` — the queues, each item with its decisions and a required written reason."""

from __future__ import annotations

from typing import Any

import reflex as rx

from benchmax.components.layout import once_loaded, page_intro, page_shell
from benchmax.models import ModerationAction
from benchmax.state.moderation import ModerationState as S

# Reflex's stubs type dict-valued state vars as arrays; these are the dict vars as they are.
_REASONS: Any = S.reasons
_EXTRAS: Any = S.extras
A = ModerationAction


def _reason_box(
    key: rx.Var[str], placeholder: str = "Reason (at least 10 characters)"
) -> rx.Component:
    return rx.vstack(
        rx.text_area(
            value=_REASONS.get(key, ""),
            on_change=lambda value: S.set_reason(key, value),
            placeholder=placeholder,
            aria_label="Reason for the decision",
            id="reason-" + key,
            width="100%",
            rows="2",
        ),
        rx.cond(
            S.errors.contains(key),
            rx.callout(
                S.errors[key], color_scheme="red", icon="circle_alert", size="1",
                id="error-" + key, width="100%",
            ),
        ),
        width="100%",
        spacing="2",
    )  # fmt: skip


def _extra_box(key: rx.Var[str], id_prefix: str, **props: Any) -> rx.Component:
    """The second box a decision may need (a corrected score, a catalog slug), kept per item."""
    return rx.input(
        value=_EXTRAS.get(key, ""),
        on_change=lambda value: S.set_extra(key, value),
        id=id_prefix + key,
        **props,
    )


def _button(label: str, key: rx.Var[str], action: ModerationAction, target: rx.Var[str] | str,
            related: rx.Var[str] | str = "", color: str = "iris",
            disabled: rx.Var[bool] | bool = False) -> rx.Component:  # fmt: skip
    return rx.button(
        label,
        on_click=S.decide(key, action.value, target, related),
        color_scheme=color,
        variant="soft",
        size="2",
        disabled=disabled,
        id=action.verb + "-" + key,
    )


def _decisions(*buttons: rx.Component, **props: Any) -> rx.Component:
    """One item's decision buttons in a row that wraps on a phone."""
    return rx.hstack(*buttons, wrap="wrap", spacing="2", **props)


def _item(*children: rx.Component, key: rx.Var[str]) -> rx.Component:
    return rx.card(rx.vstack(*children, spacing="2", width="100%"), width="100%", id=key)


def _test_link(item: rx.Var[dict[str, str]]) -> rx.Component:
    return rx.hstack(
        rx.link(item["title"], href="/tests/" + item["test_id"], weight="medium"),
        rx.badge(item["state"], variant="outline", color_scheme="gray"),
        spacing="2",
        wrap="wrap",
        align="center",
    )


def _report(item: rx.Var[dict[str, str]]) -> rx.Component:
    key = item["key"]
    return _item(
        _test_link(item),
        rx.text(
            rx.text.strong(item["reason"]),
            " · reported by @",
            item["reporter"],
            " · ",
            item["created"],
            size="2",
        ),
        rx.cond(item["evidence"] != "", rx.text("File: ", item["evidence"], size="2")),
        rx.cond(item["details"] != "", rx.text(item["details"], size="2", white_space="pre-wrap")),
        _reason_box(key),
        _decisions(
            _button("Remove Test", key, A.TEST_REMOVE, item["test_id"], item["id"], "red"),
            rx.cond(
                item["evidence_id"] != "",
                _button(
                    "Block this file",
                    key,
                    A.EVIDENCE_BLOCK,
                    item["evidence_id"],
                    item["id"],
                    "orange",
                ),
            ),
            _button("Resolve", key, A.REPORT_RESOLVE, item["id"]),
            _button("Dismiss", key, A.REPORT_DISMISS, item["id"], "", "gray"),
        ),
        key=key,
    )


def _dispute(item: rx.Var[dict[str, str]]) -> rx.Component:
    key = item["key"]
    return _item(
        _test_link(item),
        rx.text("Review (", item["kind"], "): ", rx.text.strong(item["score"], "/100"), size="2"),
        rx.text(item["reasoning"], size="2", white_space="pre-wrap", color_scheme="gray"),
        rx.text(
            "@",
            item["contributor"],
            " disputes: ",
            item["reason"],
            size="2",
            white_space="pre-wrap",
        ),
        _reason_box(
            key, "Reason (10+ characters; an overturn's reason, 20+, becomes the correction)"
        ),
        _decisions(
            _extra_box(
                key,
                "score-",
                placeholder="Score from 0 to 100 (overturn)",
                aria_label="Corrected score",
                type="number",
                min="0",
                max="100",
                width="14rem",
            ),
            _button("Uphold review", key, A.DISPUTE_UPHOLD, item["id"], "", "gray"),
            _button("Overturn with correction", key, A.DISPUTE_OVERTURN, item["id"], "", "orange"),
            align="center",
        ),
        key=key,
    )


def _flag(item: rx.Var[dict[str, str]]) -> rx.Component:
    key = item["key"]
    return _item(
        _test_link(item),
        rx.cond(item["findings"] != "", rx.text("Injection signals: ", item["findings"], size="2")),
        rx.cond(item["holds"] != "", rx.text("Open hold: ", item["holds"], size="2")),
        rx.cond(
            item["kept"] != "", rx.badge("Kept — excluded from rankings", color_scheme="amber")
        ),
        _reason_box(key),
        _decisions(
            _button("Keep hold", key, A.HOLD_KEEP, item["test_id"], "", "amber"),
            _button("Clear", key, A.HOLD_CLEAR, item["test_id"]),
            _button("Remove Test", key, A.TEST_REMOVE, item["test_id"], "", "red"),
        ),
        key=key,
    )


def _label(item: rx.Var[dict[str, str]]) -> rx.Component:
    key = item["key"]
    return _item(
        rx.text(
            rx.text.strong(item["label"]),
            " (",
            item["kind"],
            ") · ",
            item["count"],
            " public Tests",
            size="2",
        ),
        _extra_box(
            key,
            "target-",
            placeholder="Catalog slug, e.g. claude-sonnet-4-5",
            aria_label="Catalog entry slug",
            width="100%",
        ),
        _reason_box(key),
        _decisions(
            _button("Map to catalog entry", key, A.LABEL_MAP, item["label"], item["kind"]),
            _button("Leave as declared", key, A.LABEL_LEAVE, item["label"], item["kind"], "gray"),
        ),
        key=key,
    )


def _removed(item: rx.Var[dict[str, str]]) -> rx.Component:
    key = item["key"]
    return _item(
        # No link: a removed Test's page is a 404 for everyone but its contributor.
        rx.hstack(
            rx.text(item["title"], weight="medium"),
            rx.badge("removed", variant="outline", color_scheme="gray"),
            spacing="2",
            wrap="wrap",
            align="center",
        ),
        rx.text(
            "by @",
            item["contributor"],
            rx.cond(item["removed"] != "", rx.fragment(" · removed ", item["removed"])),
            size="2",
        ),
        rx.cond(
            item["reason"] != "",
            rx.text(
                "Removal reason: ",
                item["reason"],
                size="2",
                white_space="pre-wrap",
                id="removal-reason-" + key,
            ),
        ),
        _reason_box(key),
        _decisions(
            _button(
                "Restore Test",
                key,
                A.TEST_RESTORE,
                item["test_id"],
                "",
                "green",
                disabled=item["restorable"] == "",
            ),
            rx.cond(
                item["restorable"] == "",
                rx.text(
                    "Cannot be restored: ",
                    item["problem"],
                    ".",
                    size="2",
                    color_scheme="amber",
                    id="restore-blocked-" + key,
                ),
            ),
            align="center",
        ),
        key=key,
    )


def _accounts() -> rx.Component:
    key = "account"
    return _item(
        rx.text(
            "Suspend or reinstate an account, or change its role. Owners come from "
            "configuration and cannot be changed here.",
            size="2",
        ),
        rx.input(
            value=S.account_handle,
            on_change=S.set_account_handle,
            placeholder="handle",
            aria_label="Account handle",
            id="account-handle",
            width="100%",
        ),
        _reason_box(rx.Var.create(key)),
        _decisions(
            _button("Suspend", key, A.USER_SUSPEND, "", "", "red"),
            _button("Reinstate", key, A.USER_REINSTATE, ""),
            _button("Make reviewer", key, A.USER_ROLE, "", "reviewer"),
            _button("Make moderator", key, A.USER_ROLE, "", "moderator"),
            _button("Make contributor", key, A.USER_ROLE, "", "contributor", "gray"),
        ),
        key=rx.Var.create(key),
    )


def _queue(items: Any, render: Any, empty: str) -> rx.Component:
    return rx.cond(
        items.length() > 0,
        rx.vstack(rx.foreach(items, render), spacing="3", width="100%"),
        rx.text(empty, color_scheme="gray", size="2"),
    )


def _tab(value: str, label: str, count: rx.Var[int]) -> rx.Component:
    return rx.tabs.trigger(rx.hstack(label, rx.badge(count), spacing="2"), value=value,
                           id="tab-" + value)  # fmt: skip


# One row a queue: the tab's value and label, the state's list, its item view, the empty text.
_QUEUES: tuple[tuple[str, str, Any, Any, str], ...] = (
    ("reports", "Reports", S.reports, _report, "No open reports."),
    ("disputes", "Disputes", S.disputes, _dispute, "No open disputes."),
    ("flags", "Injection flags", S.flags, _flag, "No injection flags or holds."),
    ("labels", "Label requests", S.labels, _label, "Every declared label is decided."),
    ("removed", "Removed", S.removed, _removed, "No removed Tests."),
)


def _console() -> rx.Component:
    return rx.vstack(
        *page_intro(
            "Moderation",
            "Every decision needs a written reason, is appended to the record and is "
            "never edited. Contributors see the outcome and reason on their Tests.",
            size="2",
        ),
        rx.cond(
            S.notice != "",
            rx.callout(
                S.notice, color_scheme="green", icon="check", id="moderation-notice", role="status"
            ),
        ),
        rx.tabs.root(
            rx.tabs.list(
                *[_tab(value, label, items.length()) for value, label, items, _r, _e in _QUEUES],
                rx.tabs.trigger("Accounts", value="accounts", id="tab-accounts"),
                wrap="wrap",
            ),
            *[
                rx.tabs.content(_queue(items, render, empty), value=value, padding_top="1rem")
                for value, _label, items, render, empty in _QUEUES
            ],
            rx.tabs.content(_accounts(), value="accounts", padding_top="1rem"),
            default_value="reports",
            width="100%",
        ),
        spacing="4",
        width="100%",
        max_width="900px",
    )


def _not_allowed() -> rx.Component:
    return rx.callout(
        "Not allowed: the moderation console is for moderators and owners. "
        "Sign in with a moderator account to use it.",
        color_scheme="red",
        icon="shield_alert",
        id="moderation-not-allowed",
    )


def moderation_page() -> rx.Component:
    return page_shell(once_loaded(S.loaded, S.allowed, _console(), _not_allowed()))
