"""``/moderation`` — the queues, each item with its decisions and a required written reason."""

from __future__ import annotations

from typing import Any

import reflex as rx

from benchmax.components.blocks import column, row
from benchmax.components.dates import time_ago
from benchmax.components.layout import once_loaded, page_intro, page_shell
from benchmax.components.panels import refusal
from benchmax.models import ModerationAction
from benchmax.state.moderation import ModerationState as S
from benchmax.state.views.moderation import AccountView

# Reflex's stubs type dict-valued state vars as arrays; these are the dict vars as they are.
_REASONS: Any = S.reasons
_EXTRAS: Any = S.extras
_COUNTS: Any = S.open_counts
_DONE: Any = S.done
_DECIDED: Any = S.decided
A = ModerationAction
_REASON_HINT = "Reason (at least 10 characters)"


def _reason_box(key: Any, placeholder: str) -> rx.Component:
    return column(
        rx.el.label(
            "Reason for the decision", html_for="reason-" + key, class_name="visually-hidden"
        ),
        rx.text_area(
            value=_REASONS.get(key, ""),
            on_change=lambda value: S.set_reason(key, value),
            placeholder=placeholder,
            id="reason-" + key,
            width="100%",
            rows="2",
        ),
        rx.cond(
            S.errors.contains(key),
            rx.callout(
                S.errors[key], color_scheme="red", icon="circle_alert", size="1",
                id="error-" + key, width="100%", role="alert",
            ),
        ),
        spacing="2",
    )  # fmt: skip


def _extra_box(key: Any, id_prefix: str, label: str, **props: Any) -> rx.Component:
    """The second box a decision may need (a corrected score, a catalog slug), kept per item."""
    return rx.input(
        value=_EXTRAS.get(key, ""),
        on_change=lambda value: S.set_extra(key, value),
        id=id_prefix + key,
        aria_label=label,
        **props,
    )


def _button(label: str, item: Any, action: ModerationAction, target: Any, related: Any = "",
            color: str = "iris", disabled: Any = False) -> rx.Component:  # fmt: skip
    return rx.button(
        label,
        on_click=S.decide(item.key, action.value, target, related),
        color_scheme=color,
        variant="soft",
        size="2",
        disabled=disabled,
        id=action.verb + "-" + item.key,
    )


def _remove_button(item: Any, report_id: Any = "") -> rx.Component:
    """Removing a Test hides it from everyone, so it asks first (Esc or Cancel backs out)."""
    key = item.key
    return rx.alert_dialog.root(
        rx.alert_dialog.trigger(
            rx.button(rx.icon("trash-2", size=14, aria_hidden="true"), "Remove Test",
                      color_scheme="red", variant="soft", size="2", id="remove-" + key,
                      class_name="destructive"),
        ),
        rx.alert_dialog.content(
            rx.alert_dialog.title("Remove this Test?"),
            rx.alert_dialog.description(
                "It leaves the feed, search and every listing, and its files stop being "
                "served. Your reason is shown to its contributor, who can appeal. A moderator "
                "can restore it later.",
                size="2",
            ),
            rx.flex(
                rx.alert_dialog.cancel(
                    rx.button("Cancel", variant="soft", color_scheme="gray", id="cancel-" + key)
                ),
                rx.alert_dialog.action(
                    rx.button("Remove Test", color_scheme="red", id="confirm-remove-" + key,
                              on_click=S.decide(key, A.TEST_REMOVE.value, item.test_id,
                                                report_id)),
                ),
                spacing="3", justify="end", margin_top="1rem", wrap="wrap",
            ),
            max_width="28rem",
        ),
    )  # fmt: skip


def _decisions(item: Any, buttons: list[rx.Component], layout: dict[str, Any]) -> rx.Component:
    """One item's decision buttons in a row that wraps on a phone; once a decision is made
    here, its confirmation takes the buttons' place."""
    return rx.cond(
        item.done != "",
        rx.callout(
            item.done, color_scheme="green", icon="check", size="1", role="status",
            id="done-" + item.key, width="100%",
        ),
        rx.hstack(*buttons, wrap="wrap", spacing="2", **layout),
    )  # fmt: skip


def _case(
    item: Any,
    *about: rx.Component,
    decisions: list[rx.Component],
    placeholder: str = _REASON_HINT,
    **layout: Any,
) -> rx.Component:
    """One queue item as every queue shows it: what it is about, the moderator's written
    reason, then the decisions on it (``layout`` lays out their row)."""
    return rx.card(
        column(
            *about,
            _reason_box(item.key, placeholder),
            _decisions(item, decisions, layout),
            spacing="2",
        ),
        width="100%",
        id=item.key,
        class_name="moderation-item",
    )


def _test_link(item: Any, state: Any) -> rx.Component:
    return row(
        rx.link(item.title, href=item.href, weight="medium", id="test-link-" + item.key,
                class_name="item-test-link"),
        rx.badge(state, variant="outline", color_scheme="gray"),
    )  # fmt: skip


def _line_if(value: Any, label: str) -> rx.Component:
    """A labelled line of the item's, shown only when the item has that detail."""
    return rx.cond(value != "", rx.text(label, value, size="2"))


def _report(item: Any) -> rx.Component:
    return _case(
        item,
        _test_link(item, item.state),
        rx.text(rx.text.strong(item.reason), " · reported by @", item.reporter, " · ",
                time_ago(item.created), size="2"),
        _line_if(item.evidence, "File: "),
        rx.cond(item.details != "", rx.text(item.details, size="2", white_space="pre-wrap")),
        # Safe decisions first, the ones that take something down last.
        decisions=[
            _button("Resolve", item, A.REPORT_RESOLVE, item.id),
            _button("Dismiss", item, A.REPORT_DISMISS, item.id, "", "gray"),
            rx.cond(
                item.evidence_id != "",
                _button("Block this file", item, A.EVIDENCE_BLOCK, item.evidence_id, item.id,
                        "orange"),
            ),
            _remove_button(item, item.id),
        ],
    )  # fmt: skip


def _dispute(item: Any) -> rx.Component:
    return _case(
        item,
        _test_link(item, "disputed review"),
        rx.text("Review (", item.kind, "): ", rx.text.strong(item.score, "/100"), size="2"),
        rx.text(item.reasoning, size="2", white_space="pre-wrap", color_scheme="gray"),
        rx.text("@", item.contributor, " disputes: ", item.reason, size="2",
                white_space="pre-wrap"),
        placeholder="Reason (10+ characters; an overturn's reason, 20+, becomes the correction)",
        decisions=[
            _extra_box(item.key, "score-", "Corrected score",
                       placeholder="Score 0 to 100 (overturn)", type="number", min="0",
                       max="100", width="14rem"),
            _button("Uphold review", item, A.DISPUTE_UPHOLD, item.id, "", "gray"),
            _button("Overturn with correction", item, A.DISPUTE_OVERTURN, item.id, "", "orange"),
        ],
        align="center",
    )  # fmt: skip


def _flag(item: Any) -> rx.Component:
    return _case(
        item,
        _test_link(item, item.state),
        _line_if(item.findings, "Injection signals: "),
        _line_if(item.holds, "Open hold: "),
        rx.cond(item.kept, rx.badge("Kept — excluded from rankings", color_scheme="amber")),
        decisions=[
            _button("Keep hold", item, A.HOLD_KEEP, item.test_id, "", "amber"),
            _button("Clear", item, A.HOLD_CLEAR, item.test_id),
            _remove_button(item),
        ],
    )  # fmt: skip


def _label(item: Any) -> rx.Component:
    return _case(
        item,
        rx.text(
            rx.link(rx.text.strong(item.label), href=item.href, class_name="item-test-link"),
            " (", item.kind, ") · ", item.count, " public Tests", size="2",
        ),
        _extra_box(item.key, "target-", "Catalog entry slug",
                   placeholder="Catalog slug, e.g. claude-sonnet-4-5", width="100%"),
        decisions=[
            _button("Map to catalog entry", item, A.LABEL_MAP, item.label, item.kind),
            _button("Leave as declared", item, A.LABEL_LEAVE, item.label, item.kind, "gray"),
        ],
    )  # fmt: skip


def _removed(item: Any) -> rx.Component:
    key = item.key
    return _case(
        item,
        _test_link(item, "removed"),
        rx.text("by @", item.contributor,
                rx.cond(item.removed.iso != "",
                        rx.fragment(" · removed ", time_ago(item.removed))), size="2"),
        rx.cond(
            item.reason != "",
            rx.text("Removal reason: ", item.reason, size="2", white_space="pre-wrap",
                    id="removal-reason-" + key),
        ),
        decisions=[
            _button("Restore Test", item, A.TEST_RESTORE, item.test_id, "", "green",
                    disabled=~item.restorable),
            rx.cond(
                ~item.restorable,
                rx.text("Cannot be restored: ", item.problem, ".", size="2", color_scheme="amber",
                        id="restore-blocked-" + key),
            ),
        ],
        align="center",
    )  # fmt: skip


def _appeal(item: Any) -> rx.Component:
    return _case(
        item,
        _test_link(item, "removed"),
        rx.text("@", item.contributor, " appeals · ", time_ago(item.created), size="2"),
        rx.text(item.reason, size="2", white_space="pre-wrap", id="appeal-text-" + item.key),
        rx.text("Removal reason: ", item.removal_reason, size="2", color_scheme="gray",
                white_space="pre-wrap"),
        placeholder="Your answer to the contributor (at least 10 characters)",
        decisions=[
            _button("Grant: restore the Test", item, A.APPEAL_GRANT, item.id, "", "green"),
            _button("Reject: the removal stands", item, A.APPEAL_REJECT, item.id, "", "gray"),
        ],
    )  # fmt: skip


def _account_row(account: AccountView) -> rx.Component:
    return row(
        rx.button(
            "@", account.handle, variant="ghost", size="2", on_click=S.pick_account(account.handle),
            aria_label="Choose @" + account.handle,
        ),
        rx.text(account.name, size="2", color_scheme="gray"),
        rx.badge(account.role, variant="soft", class_name="account-role"),
        rx.badge(account.status, color_scheme=rx.cond(account.suspended, "red", "green"),
                 variant="soft", class_name="account-status"),
        class_name="account-match",
    )  # fmt: skip


def _account_search() -> rx.Component:
    return rx.form(
        rx.hstack(
            rx.input(value=S.account_handle, on_change=S.set_account_handle,
                     placeholder="handle, or its first letters", aria_label="Account handle",
                     id="account-handle", flex="1", min_width="12rem"),
            rx.button("Look up", type="submit", variant="soft", id="account-search"),
            width="100%", wrap="wrap", spacing="2",
        ),
        on_submit=lambda _form: S.search_accounts(),
        width="100%",
    )  # fmt: skip


def _accounts() -> rx.Component:
    """The accounts tool, laid out as a queue item of its own (its key is "account")."""
    item: Any = rx.Var.create({"key": "account", "done": _DONE.get("account", "")})
    return _case(
        item,
        rx.text(
            "Suspend or reinstate an account, or change its role. Moderators can make "
            "reviewers; owners can also make moderators. No one can make or change an owner "
            "here: owners are named in the server's configuration (",
            rx.code("BENCHMAX_OWNER_SUBJECTS"),
            ") or set by an operator with ",
            rx.code("benchmax users grant-role <handle> owner"),
            ".",
            size="2",
        ),
        _account_search(),
        rx.cond(
            S.accounts.length() > 0,
            rx.vstack(rx.foreach(S.accounts, _account_row), spacing="1", id="account-results"),
            rx.cond(S.account_searched,
                    rx.text("No account has a handle starting like that.", size="2",
                            color_scheme="gray", id="account-none")),
        ),
        decisions=[
            _button("Suspend", item, A.USER_SUSPEND, "", "", "red"),
            _button("Reinstate", item, A.USER_REINSTATE, ""),
            _button("Make reviewer", item, A.USER_ROLE, "", "reviewer"),
            _button("Make moderator", item, A.USER_ROLE, "", "moderator"),
            _button("Make contributor", item, A.USER_ROLE, "", "contributor", "gray"),
        ],
    )  # fmt: skip


def _queue(items: Any, render: Any, empty: str) -> rx.Component:
    return rx.cond(
        items.length() > 0,
        column(rx.foreach(items, render), spacing="3"),
        rx.text(empty, color_scheme="gray", size="2"),
    )


def _tab(value: str, label: str) -> rx.Component:
    return rx.tabs.trigger(
        rx.hstack(label, rx.badge(_COUNTS[value]), spacing="2", align="center"),
        value=value, id="tab-" + value,
    )  # fmt: skip


def _tab_panel(value: str, body: rx.Component) -> rx.Component:
    """A tab's queue, under what the last decision made in it did (the item itself has left
    the open list)."""
    decided = rx.callout(
        _DECIDED.get(value, ""), color_scheme="green", icon="check", size="1", role="status",
        id="decided-" + value, width="100%",
    )  # fmt: skip
    return rx.tabs.content(
        column(rx.cond(_DECIDED.get(value, "") != "", decided), body, spacing="3"),
        value=value,
        padding_top="1rem",
    )


# One row a queue: the tab's value and label, the state's list, its item view, the empty text.
_QUEUES: tuple[tuple[str, str, Any, Any, str], ...] = (
    ("reports", "Reports", S.reports, _report, "No open reports. Reports people send appear here."),
    ("appeals", "Appeals", S.appeals, _appeal, "No open appeals against removals."),
    ("disputes", "Disputes", S.disputes, _dispute, "No open disputes."),
    ("flags", "Injection flags", S.flags, _flag, "No injection flags or holds."),
    ("labels", "Label requests", S.labels, _label, "Every declared label is decided."),
    ("removed", "Removed", S.removed, _removed, "No removed Tests."),
)


def _queue_tabs() -> rx.Component:
    """A tab a queue with its open count, then the accounts tool; ``?tab=`` picks one."""
    return rx.tabs.root(
        rx.tabs.list(
            *[_tab(value, label) for value, label, _i, _r, _e in _QUEUES],
            rx.tabs.trigger("Accounts", value="accounts", id="tab-accounts"),
            # One row that scrolls sideways on a phone, with a shadow where tabs are hidden,
            # rather than three rows with the active tab's underline floating among them.
            class_name="moderation-tabs scroll-x",
        ),
        rx.script(src="/tab_reveal.js"),  # the selected tab stays in sight on a phone
        *[
            _tab_panel(value, _queue(items, render, empty))
            for value, _l, items, render, empty in _QUEUES
        ],
        _tab_panel("accounts", _accounts()),
        value=S.tab,
        on_change=S.set_tab,
        width="100%",
    )


def moderation_page() -> rx.Component:
    console = column(
        *page_intro(
            "Moderation",
            "Every decision needs a written reason, is appended to the record and is "
            "never edited. Contributors see the outcome and reason on their Tests.",
            size="2",
        ),
        _queue_tabs(),
        spacing="4",
        max_width="900px",
    )
    not_allowed = refusal(
        "Not allowed: the moderation console is for moderators and owners. "
        "Sign in with a moderator account to use it.",
        "shield_alert",
        "moderation-not-allowed",
    )
    return page_shell(once_loaded(S.loaded, S.allowed, console, not_allowed))
