"""What moderators work through: open reports, open disputes, injection flags and holds,
declared labels that match no catalog entry, appeals against removals, and removed Tests
that may be restored.

Items carry ids and the text moderators need to decide; each list is bounded by ``limit``
and oldest first, so nothing waits forever behind newer work. Removed Tests are the
exception: they are not waiting on anyone, so the most recently removed come first.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from sqlalchemy import String, cast
from sqlmodel import Session, col, select

from benchmax.models import (
    CaseState,
    Dispute,
    EvidenceFile,
    ModerationAction,
    ModerationDecision,
    ModerationHold,
    Report,
    ReportReason,
    Review,
    Test,
    TestState,
    User,
)
from benchmax.models._base import as_utc
from benchmax.services import catalog
from benchmax.services.dates import IsoText, JsonReady
from benchmax.services.moderation.appeals import AppealItem, open_appeals
from benchmax.services.moderation.cases import oldest_open

# Re-exported: the moderation page keys its label rows by the decision's target id.
from benchmax.services.moderation.label_decisions import label_target_id as label_target_id
from benchmax.services.moderation.policy import require_admin
from benchmax.services.moderation.records import latest_removals
from benchmax.services.moderation.reports import REASON_LABELS
from benchmax.services.moderation.takedowns import restore_problem

HOLD_ACTIONS = (ModerationAction.HOLD_KEEP, ModerationAction.HOLD_CLEAR)


def injection_codes(scan_report: object) -> list[str]:
    """Signal codes of the injection findings a scan recorded (``scan_report["findings"]``)."""
    findings = scan_report.get("findings") if isinstance(scan_report, dict) else None
    if not isinstance(findings, list):
        return []
    return [
        str(item.get("code", "injection"))
        for item in findings
        if isinstance(item, dict) and item.get("type") == "injection"
    ]


@dataclass(frozen=True)
class ReportItem:
    id: str
    test_id: str
    test_title: str
    test_state: str
    evidence_id: str | None
    evidence_name: str | None
    reason: str
    reason_label: str
    details: str
    reporter_handle: str
    created_at: IsoText


@dataclass(frozen=True)
class DisputeItem:
    id: str
    review_id: str
    test_id: str
    test_title: str
    contributor_handle: str
    reason: str
    review_score: int
    review_reasoning: str
    reviewer_kind: str
    reviewer_id: str | None
    created_at: IsoText


@dataclass(frozen=True)
class FlagItem:
    """A Test with injection findings or an open hold. ``kept``: a moderator kept its hold."""

    test_id: str
    test_title: str
    test_state: str
    hold_codes: list[str]
    finding_codes: list[str]
    kept: bool


@dataclass(frozen=True)
class LabelItem:
    kind: str
    label: str
    key: str
    test_count: int


@dataclass(frozen=True)
class RemovedItem:
    """A removed Test. ``reason``: the moderator's words on its latest removal ("" when no
    decision records one). ``can_restore``: whether ``takedowns.restore_test`` would pass its
    safety checks now; when not, ``restore_problem`` says why, in words a moderator can read."""

    test_id: str
    test_title: str
    contributor_handle: str
    removed_at: IsoText
    reason: str
    can_restore: bool
    restore_problem: str


@dataclass(frozen=True)
class Queues(JsonReady):
    reports: list[ReportItem] = field(default_factory=list)
    disputes: list[DisputeItem] = field(default_factory=list)
    flags: list[FlagItem] = field(default_factory=list)
    labels: list[LabelItem] = field(default_factory=list)
    removed: list[RemovedItem] = field(default_factory=list)
    appeals: list[AppealItem] = field(default_factory=list)


def _iso(row: Report | Dispute) -> str:
    return as_utc(row.created_at).isoformat()


def open_reports(session: Session, limit: int) -> list[ReportItem]:
    rows = session.exec(
        oldest_open(Report, EvidenceFile.safe_name)
        .outerjoin(EvidenceFile, col(EvidenceFile.id) == Report.evidence_id)
        .limit(limit)
    ).all()
    return [
        ReportItem(
            id=report.id,
            test_id=test.id,
            test_title=test.display_title,
            test_state=str(test.state),
            evidence_id=report.evidence_id,
            evidence_name=name,
            reason=str(report.reason),
            reason_label=REASON_LABELS.get(ReportReason(report.reason), str(report.reason)),
            details=report.details,
            reporter_handle=handle,
            created_at=_iso(report),
        )
        for report, test, handle, name in rows
    ]


def open_disputes(session: Session, limit: int) -> list[DisputeItem]:
    rows = session.exec(
        oldest_open(Dispute, Review).join(Review, col(Review.id) == Dispute.review_id).limit(limit)
    ).all()
    return [
        DisputeItem(
            id=dispute.id,
            review_id=review.id,
            test_id=test.id,
            test_title=test.display_title,
            contributor_handle=handle,
            reason=dispute.reason,
            review_score=review.score,
            review_reasoning=review.reasoning,
            reviewer_kind=str(review.reviewer_kind),
            reviewer_id=review.reviewer_id,
            created_at=_iso(dispute),
        )
        for dispute, test, handle, review in rows
    ]


def injection_codes_for_test(session: Session, test_id: str) -> list[str]:
    files = session.exec(select(EvidenceFile).where(EvidenceFile.test_id == test_id)).all()
    return [code for file in files for code in injection_codes(file.scan_report)]


def _last_hold_actions(session: Session, test_ids: Iterable[str]) -> dict[str, str]:
    """The latest hold decision per Test, for the ones that have any."""
    rows = session.exec(
        select(ModerationDecision.target_id, ModerationDecision.action)
        .where(
            col(ModerationDecision.target_type) == "test",
            col(ModerationDecision.target_id).in_(list(test_ids)),
            col(ModerationDecision.action).in_(HOLD_ACTIONS),
        )
        .order_by(col(ModerationDecision.created_at), col(ModerationDecision.id))
    ).all()
    return dict(rows)  # later rows overwrite earlier ones


def flagged_tests(session: Session, limit: int) -> list[FlagItem]:
    """Tests with an open hold, then public Tests whose files carry injection findings and
    that no moderator has decided on yet."""
    holds: dict[str, list[str]] = {}
    for hold in session.exec(
        select(ModerationHold)
        .where(ModerationHold.state == CaseState.OPEN)
        .order_by(col(ModerationHold.created_at), col(ModerationHold.id))
        .limit(limit)
    ).all():
        holds.setdefault(hold.test_id, []).append(hold.reason_code)
    decided_tests = select(ModerationDecision.target_id).where(
        col(ModerationDecision.target_type) == "test",
        col(ModerationDecision.action).in_(HOLD_ACTIONS),
    )
    findings: dict[str, list[str]] = {}
    # The text match narrows the rows on both engines; the JSON is then read properly.
    for file in session.exec(
        select(EvidenceFile)
        .join(Test, col(Test.id) == EvidenceFile.test_id)
        .where(col(Test.state) == TestState.PUBLIC, col(Test.id).not_in(decided_tests))
        .where(cast(EvidenceFile.scan_report, String).contains("injection"))
        .order_by(col(EvidenceFile.created_at), col(EvidenceFile.id))
        .limit(limit * 20)
    ).all():
        codes = injection_codes(file.scan_report)
        if codes:
            findings.setdefault(file.test_id, []).extend(codes)
    decided = _last_hold_actions(session, holds)
    test_ids = [*holds, *(test_id for test_id in findings if test_id not in holds)]
    tests = {
        test.id: test
        for test in session.exec(select(Test).where(col(Test.id).in_(test_ids[:limit]))).all()
    }
    return [
        FlagItem(
            test_id=test_id,
            test_title=tests[test_id].display_title,
            test_state=str(tests[test_id].state),
            hold_codes=holds.get(test_id, []),
            finding_codes=sorted(set(findings.get(test_id, []))),
            kept=decided.get(test_id) == ModerationAction.HOLD_KEEP,
        )
        for test_id in test_ids[:limit]
    ]


def label_requests(session: Session, limit: int) -> list[LabelItem]:
    """Declared labels matching nothing that no moderator chose to leave as declared."""
    labels = catalog.declared_unmatched_labels(session, limit)
    targets = {label_target_id(item.kind, item.key): item for item in labels}
    left = set(
        session.exec(
            select(ModerationDecision.target_id).where(
                col(ModerationDecision.action) == ModerationAction.LABEL_LEAVE,
                col(ModerationDecision.target_id).in_(list(targets)),
            )
        ).all()
    )
    return [
        LabelItem(item.kind, item.label, item.key, item.test_count)
        for target, item in targets.items()
        if target not in left
    ]


def removed_tests(session: Session, limit: int) -> list[RemovedItem]:
    """Removed Tests, most recently removed first, each with why it was removed and whether
    it could be made public again now."""
    # The very check restore_test makes, so the queue and the decision never disagree.
    rows = session.exec(
        select(Test, User.handle)
        .join(User, col(User.id) == Test.contributor_id)
        .where(col(Test.state) == TestState.REMOVED)
        .order_by(col(Test.removed_at).desc().nulls_last(), col(Test.id).desc())
        .limit(limit)
    ).all()
    test_ids = [test.id for test, _ in rows]
    files: dict[str, list[EvidenceFile]] = {test_id: [] for test_id in test_ids}
    for file in session.exec(
        select(EvidenceFile).where(col(EvidenceFile.test_id).in_(test_ids))
    ).all():
        files[file.test_id].append(file)
    removals = latest_removals(session, test_ids)
    items: list[RemovedItem] = []
    for test, handle in rows:
        removal = removals.get(test.id)
        removed_at = test.removed_at or (removal.created_at if removal else None)
        problem = restore_problem(test, files[test.id])
        items.append(
            RemovedItem(
                test_id=test.id,
                test_title=test.display_title,
                contributor_handle=handle,
                removed_at=as_utc(removed_at).isoformat() if removed_at else "",
                reason=removal.reason if removal else "",
                can_restore=problem is None,
                restore_problem=problem or "",
            )
        )
    return items


def moderation_queues(session: Session, actor: User | None, limit: int = 50) -> Queues:
    """Every queue, for moderators and owners only."""
    require_admin(actor, "see the moderation queues")
    limit = max(1, min(limit, 200))
    return Queues(
        reports=open_reports(session, limit),
        disputes=open_disputes(session, limit),
        flags=flagged_tests(session, limit),
        labels=label_requests(session, limit),
        removed=removed_tests(session, limit),
        appeals=open_appeals(session, limit),
    )
