"""Every moderation action by name, with the one service call that performs it.

The JSON API (``/api/v1/moderation/...``) and the ``/moderation`` page both look an action up
here, so a moderator's API token and the page can do exactly the same things in exactly the
same way. Each caller fills a ``Request`` from what it received; an action reads only the
fields it needs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlmodel import Session

from benchmax.models import ModerationAction, ModerationDecision, User
from benchmax.services.errors import NotFound
from benchmax.services.moderation import (
    appeals,
    disputes,
    holds,
    label_decisions,
    reports,
    roles,
    takedowns,
)
from benchmax.services.prompts import groups


@dataclass(frozen=True)
class Request:
    """What a moderator sent for one action.

    ``target`` is what the action is about: a Test, file, report, dispute or appeal id, an account's
    handle, a prompt key, or, for label actions, the declared label.
    """

    target: str
    reason: str
    report_id: str | None = None  # test.remove, evidence.block: the report this settles
    kind: str = ""  # label actions: model or harness
    slug: str = ""  # label.map: the catalog entry
    role: str = ""  # user.role
    score: object = None  # dispute.overturn: the correcting review's score
    other_key: str = ""  # prompt.alias: the prompt key joined to the target key


Perform = Callable[[Session, User | None, Request], ModerationDecision | User]

A = ModerationAction
ACTIONS: dict[ModerationAction, Perform] = {
    A.TEST_REMOVE: lambda s, u, r: takedowns.remove_test(s, u, r.target, r.reason, r.report_id),
    A.TEST_RESTORE: lambda s, u, r: takedowns.restore_test(s, u, r.target, r.reason),
    A.EVIDENCE_BLOCK: lambda s, u, r: takedowns.block_evidence(
        s, u, r.target, r.reason, r.report_id
    ),
    A.REPORT_RESOLVE: lambda s, u, r: reports.decide_report(s, u, r.target, "resolve", r.reason),
    A.REPORT_DISMISS: lambda s, u, r: reports.decide_report(s, u, r.target, "dismiss", r.reason),
    A.DISPUTE_UPHOLD: lambda s, u, r: disputes.decide_dispute(s, u, r.target, "uphold", r.reason),
    A.DISPUTE_OVERTURN: lambda s, u, r: disputes.decide_dispute(
        s, u, r.target, "overturn", r.reason, r.score
    ),
    A.HOLD_KEEP: lambda s, u, r: holds.decide_hold(s, u, r.target, "keep", r.reason),
    A.HOLD_CLEAR: lambda s, u, r: holds.decide_hold(s, u, r.target, "clear", r.reason),
    A.LABEL_MAP: lambda s, u, r: label_decisions.map_label(
        s, u, r.kind, r.target, r.slug, r.reason
    ),
    A.LABEL_LEAVE: lambda s, u, r: label_decisions.leave_label_declared(
        s, u, r.kind, r.target, r.reason
    ),
    A.USER_ROLE: lambda s, u, r: roles.change_role(s, u, r.target, r.role, r.reason),
    A.USER_SUSPEND: lambda s, u, r: roles.suspend(s, u, r.target, r.reason),
    A.USER_REINSTATE: lambda s, u, r: roles.reinstate(s, u, r.target, r.reason),
    A.PROMPT_ALIAS: lambda s, u, r: groups.record_alias(s, u, r.target, r.other_key, r.reason),
    A.APPEAL_GRANT: lambda s, u, r: appeals.decide_appeal(s, u, r.target, "grant", r.reason),
    A.APPEAL_REJECT: lambda s, u, r: appeals.decide_appeal(s, u, r.target, "reject", r.reason),
}


def perform(
    session: Session, actor: User | None, action: str, request: Request
) -> ModerationDecision | User:
    """Run ``action``: the appended decision, or the changed account for account actions."""
    try:
        run = ACTIONS[ModerationAction(action)]
    except ValueError:
        raise NotFound("unknown_action", "There is no such moderation action.") from None
    return run(session, actor, request)
