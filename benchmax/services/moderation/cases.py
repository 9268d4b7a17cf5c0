"""What every moderation decision shares: the Test it is about, the case it settles, and
the line the contributor reads.

Each decision needs a written reason and appends one ``ModerationDecision`` (with the state
before and after) and one audit event (``records.record_decision``). Rows that carry state — a
Test's visibility, a file's state, a case's state — change; the submission's prompt, output
and bytes never do, and nothing is deleted. A moderator never decides a case about their own
Test, nor a dispute about their own review.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from benchmax.models import (
    Appeal,
    AuditAction,
    CaseState,
    Dispute,
    ModerationHold,
    Report,
    Test,
    User,
    audit,
)
from benchmax.models._base import is_public_id, utcnow
from benchmax.services.errors import Conflict, Forbidden, NotFound

_FAILURE_REASON_MAX = 500  # Test.failure_reason and EvidenceFile.block_reason columns
Case = TypeVar("Case", Report, Dispute, Appeal)


def outcome_line(outcome: str, reason: str) -> str:
    """What the contributor reads beside their Test: the outcome and the moderator's words."""
    line = f"{outcome}. Reason: {reason}"
    return line if len(line) <= _FAILURE_REASON_MAX else line[: _FAILURE_REASON_MAX - 1] + "…"


def decided_test(session: Session, admin: User, test_id: object) -> Test:
    """The Test a decision is about, locked until commit; never the moderator's own."""
    found = isinstance(test_id, str) and is_public_id(test_id)
    test = session.get(Test, test_id, with_for_update=True) if found else None
    if test is None:
        raise NotFound("test_not_found", "No Test has this id.")
    if test.contributor_id == admin.id:
        raise Forbidden("own_test", "This is your own Test; another moderator must decide.")
    return test


def open_report_for(session: Session, report_id: str | None, test: Test) -> Report | None:
    """The open report a decision settles, when one was named; it must be about this Test."""
    if report_id is None:
        return None
    report = session.get(Report, report_id) if is_public_id(report_id) else None
    if report is None or report.test_id != test.id:
        raise NotFound("report_not_found", "That report is not about this Test.", "report_id")
    if report.state != CaseState.OPEN:
        raise Conflict("report_closed", "That report was already decided.")
    return report


def add_case(
    session: Session,
    case: Dispute | Appeal,
    action: AuditAction,
    actor: User,
    detail: dict[str, Any],
    refuse_if_open: Callable[[], None],
) -> None:
    """Insert a contributor's case with its audit event, both or neither.

    A savepoint lets an insert refused by a one-open-case index leave the caller's
    transaction usable. The audit event sits inside it so the two are written or refused
    together: with SQLite's driver a savepoint opened before any other write is the whole
    transaction, and releasing it commits. A lost race is answered as the service's own
    check would answer it (``refuse_if_open``).
    """
    try:
        with session.begin_nested():
            session.add(case)
            subject = "dispute" if isinstance(case, Dispute) else "appeal"
            audit(session, action, (subject, case.id), actor_id=actor.id, detail=detail)
    except IntegrityError:
        refuse_if_open()
        raise


def close_case(
    case: Report | Dispute | Appeal | ModerationHold, state: CaseState, session: Session
) -> None:
    case.state = state
    case.closed_at = utcnow()
    session.add(case)


def open_case(
    session: Session, admin: User, model: type[Case], case_id: str, noun: str
) -> tuple[Case, Test]:
    """The open case ``case_id`` and its Test, which is not the moderator's own."""
    case = session.get(model, case_id) if is_public_id(case_id) else None
    if case is None:
        raise NotFound(f"{noun}_not_found", f"No {noun} has this id.")
    test = decided_test(session, admin, case.test_id)
    if case.state != CaseState.OPEN:
        raise Conflict(f"{noun}_closed", f"That {noun} was already decided.")
    return case, test
