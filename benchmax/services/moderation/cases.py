"""What every moderation decision shares: the Test it is about, the case it settles, and
the line the contributor reads.

Each decision needs a written reason and appends one ``ModerationDecision`` (with the state
before and after) and one audit event (``records.record_decision``). Rows that carry state — a
Test's visibility, a file's state, a case's state — change; the submission's prompt, output
and bytes never do, and nothing is deleted. A moderator never decides a case about their own
Test, nor a dispute about their own review.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

from sqlmodel import Session, col, select
from sqlmodel.sql.expression import SelectOfScalar

from benchmax.models import (
    Appeal,
    AuditAction,
    CaseState,
    Dispute,
    ModerationHold,
    Report,
    Test,
    User,
)
from benchmax.models._base import is_public_id, utcnow
from benchmax.services.errors import Conflict, Forbidden, NotFound

_FAILURE_REASON_MAX = 500  # Test.failure_reason and EvidenceFile.block_reason columns
Case = TypeVar("Case", Report, Dispute, Appeal)


@dataclass(frozen=True)
class CaseKind:
    """What differs between the kinds of case someone files: the word for it in audit
    events, decisions and error codes, the column naming who filed it, and the audit action
    recorded when it is filed."""

    noun: str
    author: Any  # a model column; SQLModel's columns have no common public type
    filed: AuditAction


KINDS: dict[type[Report | Dispute | Appeal], CaseKind] = {
    Report: CaseKind("report", Report.reporter_id, AuditAction.REPORT_CREATED),
    Dispute: CaseKind("dispute", Dispute.contributor_id, AuditAction.DISPUTE_OPENED),
    Appeal: CaseKind("appeal", Appeal.contributor_id, AuditAction.APPEAL_OPENED),
}


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


def close_case(
    case: Report | Dispute | Appeal | ModerationHold, state: CaseState, session: Session
) -> None:
    case.state = state
    case.closed_at = utcnow()
    session.add(case)


def open_case(session: Session, admin: User, model: type[Case], case_id: str) -> tuple[Case, Test]:
    """The open case ``case_id`` and its Test, which is not the moderator's own."""
    noun = KINDS[model].noun
    case = session.get(model, case_id) if is_public_id(case_id) else None
    if case is None:
        raise NotFound(f"{noun}_not_found", f"No {noun} has this id.")
    test = decided_test(session, admin, case.test_id)
    if case.state != CaseState.OPEN:
        raise Conflict(f"{noun}_closed", f"That {noun} was already decided.")
    return case, test


def oldest_open(model: type[Case], extra: Any) -> SelectOfScalar[Any]:
    """Open cases of ``model``, oldest first (so nothing waits forever behind newer work),
    each as (case, Test, author's handle, ``extra``); the caller joins what ``extra`` needs."""
    query: SelectOfScalar[Any] = (
        select(model, Test, User.handle, extra)  # type: ignore[assignment]
        .join(Test, col(Test.id) == model.test_id)
        .join(User, col(User.id) == KINDS[model].author)
        .where(col(model.state) == CaseState.OPEN)
        .order_by(col(model.created_at), col(model.id))
    )
    return query
