"""The append-only record: one decision row and one audit event per moderation action.

Decision rows keep the moderator's reason and the before/after state; audit events carry ids
only. The database refuses UPDATE and DELETE on both, so history can only grow.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import or_
from sqlmodel import Session, col, select

from benchmax.models import (
    Appeal,
    CaseState,
    Dispute,
    EvidenceFile,
    ModerationAction,
    ModerationDecision,
    Report,
    User,
    audit,
)
from benchmax.models._base import as_utc
from benchmax.services.dates import JsonReady
from benchmax.services.moderation.cases import KINDS, close_case

_BATCH = 500
# What a contributor reads on /me for each decision that touched their Test.
OUTCOMES = {
    ModerationAction.TEST_REMOVE: "Removed by a moderator",
    ModerationAction.TEST_RESTORE: "Restored by a moderator",
    ModerationAction.EVIDENCE_BLOCK: "A file was blocked by a moderator",
    ModerationAction.HOLD_KEEP: "Kept out of rankings pending moderation",
    ModerationAction.HOLD_CLEAR: "Cleared for rankings by a moderator",
    ModerationAction.DISPUTE_UPHOLD: "Your dispute was reviewed; the review stands",
    ModerationAction.DISPUTE_OVERTURN: "Your dispute was upheld; the review was corrected",
    ModerationAction.APPEAL_GRANT: "Your appeal was granted; the Test is public again",
    ModerationAction.APPEAL_REJECT: "Your appeal was reviewed; the removal stands",
}


@dataclass(frozen=True)
class DecisionOutcome(JsonReady):
    id: str
    action: str
    outcome: str
    reason: str
    previous_state: str
    next_state: str
    created_at: datetime


def record_decision(
    session: Session,
    actor: User,
    action: ModerationAction,
    target: tuple[str, str],
    reason: str,
    states: tuple[str, str],
    *,
    report_id: str | None = None,
    dispute_id: str | None = None,
) -> ModerationDecision:
    """Append the decision ``action`` on ``target`` (type, id) moving it ``states`` (from, to)."""
    target_type, target_id = target
    decision = ModerationDecision(
        moderator_id=actor.id,
        action=action,
        target_type=target_type,
        target_id=target_id,
        reason=reason,
        previous_state=states[0],
        next_state=states[1],
        report_id=report_id,
        dispute_id=dispute_id,
    )
    session.add(decision)
    ids = {"decision_id": decision.id, "report_id": report_id, "dispute_id": dispute_id}
    audit(
        session,
        action,
        target,
        actor_id=actor.id,
        detail={key: value for key, value in ids.items() if value},
    )
    session.flush()
    return decision


def settle_case(
    session: Session,
    admin: User,
    case: Report | Dispute | Appeal,
    outcome: str,
    reason: str,
    closed: tuple[CaseState, str],
) -> ModerationDecision:
    """Close ``case`` in ``closed[0]`` and append the decision ``<noun>.<outcome>`` that
    moved it from "open" to ``closed[1]``, linked to the case when it is a report or dispute."""
    state, next_state = closed
    close_case(case, state, session)
    noun = KINDS[type(case)].noun
    return record_decision(
        session,
        admin,
        ModerationAction(f"{noun}.{outcome}"),
        (noun, case.id),
        reason,
        ("open", next_state),
        report_id=case.id if isinstance(case, Report) else None,
        dispute_id=case.id if isinstance(case, Dispute) else None,
    )


def latest_removals(session: Session, test_ids: Sequence[str]) -> dict[str, ModerationDecision]:
    """The latest remove decision per Test, for the ones that have any."""
    rows = session.exec(
        select(ModerationDecision)
        .where(
            col(ModerationDecision.target_type) == "test",
            col(ModerationDecision.target_id).in_(list(test_ids)),
            col(ModerationDecision.action) == ModerationAction.TEST_REMOVE,
        )
        .order_by(col(ModerationDecision.created_at), col(ModerationDecision.id))
    ).all()
    return {row.target_id: row for row in rows}  # later rows overwrite earlier ones


def decisions_for_tests(
    session: Session, test_ids: Sequence[str]
) -> dict[str, list[DecisionOutcome]]:
    """Decisions about each Test, its files, disputes and appeals, oldest first, for /me.

    One query per 500 Tests however many decisions there are. Report decisions are left
    out on purpose: they concern the reporter's case, and any change they caused to the Test
    is a decision of its own. The caller checks the viewer.
    """
    outcomes: dict[str, list[DecisionOutcome]] = {}
    for start in range(0, len(test_ids), _BATCH):
        batch = list(test_ids[start : start + _BATCH])
        for test_id, row in _decision_rows(session, batch):
            outcomes.setdefault(test_id, []).append(
                DecisionOutcome(
                    id=row.id,
                    action=row.action,
                    outcome=OUTCOMES[ModerationAction(row.action)],
                    reason=row.reason,
                    previous_state=row.previous_state,
                    next_state=row.next_state,
                    created_at=as_utc(row.created_at),
                )
            )
    return outcomes


def _decision_rows(session: Session, test_ids: list[str]) -> list[tuple[str, ModerationDecision]]:
    files = (
        select(EvidenceFile.id, EvidenceFile.test_id)
        .where(col(EvidenceFile.test_id).in_(test_ids))
        .subquery()
    )
    disputes = (
        select(Dispute.id, Dispute.test_id).where(col(Dispute.test_id).in_(test_ids)).subquery()
    )
    appeals = select(Appeal.id, Appeal.test_id).where(col(Appeal.test_id).in_(test_ids)).subquery()
    on_test = (col(ModerationDecision.target_type) == "test") & col(
        ModerationDecision.target_id
    ).in_(test_ids)
    rows = session.exec(
        select(ModerationDecision, files.c.test_id, disputes.c.test_id, appeals.c.test_id)
        .outerjoin(
            files,
            (col(ModerationDecision.target_type) == "evidence")
            & (col(ModerationDecision.target_id) == files.c.id),
        )
        .outerjoin(disputes, col(ModerationDecision.dispute_id) == disputes.c.id)
        .outerjoin(
            appeals,
            (col(ModerationDecision.target_type) == "appeal")
            & (col(ModerationDecision.target_id) == appeals.c.id),
        )
        .where(col(ModerationDecision.action).in_(OUTCOMES))
        .where(
            or_(
                on_test,
                files.c.test_id.is_not(None),
                disputes.c.test_id.is_not(None),
                appeals.c.test_id.is_not(None),
            )
        )
        .order_by(col(ModerationDecision.created_at), col(ModerationDecision.id))
    ).all()
    wanted = set(test_ids)
    return [
        (
            row.target_id
            if row.target_type == "test" and row.target_id in wanted
            else file_test or dispute_test or appeal_test,
            row,
        )
        for row, file_test, dispute_test, appeal_test in rows
    ]
