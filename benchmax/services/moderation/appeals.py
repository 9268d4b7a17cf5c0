"""Appeals: a contributor asks for their removed Test back; a moderator grants or rejects.

An appeal contests one removal decision. Nothing about that removal is edited: the answer is
a new decision about the appeal (``appeal.grant`` or ``appeal.reject``), and granting also
restores the Test through ``takedowns.restore_test``, which keeps its own safety checks and
records its own decision. One open appeal per Test (kept by a partial unique index too), one
answered appeal per removal, and an hourly cap per account.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlmodel import Session, col, select

from benchmax.models import (
    Appeal,
    CaseState,
    ModerationDecision,
    Test,
    TestState,
    User,
)
from benchmax.models._base import as_utc, is_public_id
from benchmax.services.errors import Conflict, Forbidden, NotFound
from benchmax.services.moderation.cases import oldest_open, open_case
from benchmax.services.moderation.filing import file_case
from benchmax.services.moderation.policy import clean_reason, require_active, require_admin
from benchmax.services.moderation.records import latest_removals, settle_case
from benchmax.services.moderation.takedowns import restore_test

APPEAL_MIN = 20  # long enough to say why; a moderator reads every one


@dataclass(frozen=True)
class AppealItem:
    """An open appeal as the moderation queue shows it."""

    id: str
    test_id: str
    test_title: str
    contributor_handle: str
    reason: str
    removal_reason: str
    created_at: datetime


def _refuse_if_open(session: Session, test_id: str) -> None:
    if open_appeal_for(session, test_id) is not None:
        raise Conflict(
            "appeal_open", "This Test already has an open appeal; a moderator will decide it."
        )


def open_appeal_for(session: Session, test_id: str) -> Appeal | None:
    return session.exec(
        select(Appeal).where(Appeal.test_id == test_id, Appeal.state == CaseState.OPEN)
    ).first()


def _appealable_removal(session: Session, test: Test) -> ModerationDecision:
    """The removal an appeal would contest: the latest one, not yet answered."""
    if test.state != TestState.REMOVED:
        raise Conflict("not_removed", "Only a removed Test can be appealed.")
    removal = latest_removals(session, [test.id]).get(test.id)
    if removal is None:
        raise Conflict(
            "no_removal", "No moderator removed this Test, so there is nothing to appeal."
        )
    answered = session.exec(
        select(Appeal.id).where(Appeal.removal_id == removal.id, Appeal.state != CaseState.OPEN)
    ).first()
    if answered is not None:
        raise Conflict(
            "appeal_decided", "An appeal against this removal was already decided by a moderator."
        )
    return removal


def open_appeal(
    session: Session, actor: User | None, test_id: str, reason: object, *, per_hour: int
) -> Appeal:
    """Appeal the removal of one's own Test; refused for anyone else's, and while one is open."""
    user = require_active(actor, "appeal a removal")
    test = session.get(Test, test_id, with_for_update=True) if is_public_id(test_id) else None
    if test is None:
        raise NotFound("test_not_found", "No Test has this id.")
    if test.contributor_id != user.id:
        raise Forbidden("not_allowed", "Only the Test's contributor can appeal its removal.")
    clean = clean_reason(reason, label="appeal", noun="The appeal", minimum=APPEAL_MIN)
    removal = _appealable_removal(session, test)
    appeal = Appeal(test_id=test.id, contributor_id=user.id, removal_id=removal.id, reason=clean)
    detail = {"test_id": test.id, "removal_id": removal.id}
    file_case(
        session, appeal, user, detail, lambda: _refuse_if_open(session, test.id), per_hour=per_hour
    )
    return appeal


def decide_appeal(
    session: Session,
    actor: User | None,
    appeal_id: str,
    outcome: Literal["grant", "reject"],
    reason: str,
) -> ModerationDecision:
    """Grant (the Test is restored, if it still passes safety) or reject (the removal stands)."""
    admin = require_admin(actor, "decide appeals")
    appeal, test = open_case(session, admin, Appeal, appeal_id)
    clean = clean_reason(reason)
    if outcome == "grant":
        restore_test(session, admin, test.id, clean)
        return settle_case(session, admin, appeal, outcome, clean, (CaseState.RESOLVED, "granted"))
    return settle_case(session, admin, appeal, outcome, clean, (CaseState.DISMISSED, "rejected"))


def open_appeals(session: Session, limit: int) -> list[AppealItem]:
    """Open appeals, oldest first, each with the removal reason it answers."""
    rows = session.exec(
        oldest_open(Appeal, ModerationDecision.reason)
        .join(ModerationDecision, col(ModerationDecision.id) == Appeal.removal_id)
        .limit(limit)
    ).all()
    return [
        AppealItem(
            id=appeal.id,
            test_id=test.id,
            test_title=test.display_title,
            contributor_handle=handle,
            reason=appeal.reason,
            removal_reason=removal_reason,
            created_at=as_utc(appeal.created_at),
        )
        for appeal, test, handle, removal_reason in rows
    ]


def appeal_states(session: Session, test_ids: list[str]) -> dict[str, str]:
    """For /me: "open" while an appeal waits, "answered" once the latest removal's appeal was
    decided; Tests that may still be appealed (or were never removed) are left out."""
    if not test_ids:
        return {}
    removals = {test_id: row.id for test_id, row in latest_removals(session, test_ids).items()}
    rows = session.exec(
        select(Appeal.test_id, Appeal.removal_id, Appeal.state)
        .where(col(Appeal.test_id).in_(test_ids))
        .order_by(col(Appeal.created_at), col(Appeal.id))
    ).all()
    states: dict[str, str] = {}
    for test_id, removal_id, state in rows:
        if state == CaseState.OPEN:
            states[test_id] = "open"
        elif removals.get(test_id) == removal_id:
            states[test_id] = "answered"
        else:
            states.pop(test_id, None)  # an older removal's appeal; the latest one is open to appeal
    return states
