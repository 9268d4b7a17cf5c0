"""Reports: any active signed-in user flags a public Test, or one of its files, for moderators;
a moderator resolves or dismisses it."""

from __future__ import annotations

from typing import Literal

from sqlmodel import Session, select

from benchmax.models import (
    AuditAction,
    CaseState,
    EvidenceFile,
    ModerationDecision,
    Report,
    ReportReason,
    Test,
    User,
    audit,
)
from benchmax.services.errors import Conflict, Invalid, NotFound
from benchmax.services.evidence_visibility import readers_see
from benchmax.services.moderation.cases import open_case
from benchmax.services.moderation.policy import (
    clean_reason,
    clean_text,
    require_active,
    require_admin,
)
from benchmax.services.moderation.rate_limits import check_hourly_limit
from benchmax.services.moderation.records import settle_case
from benchmax.services.moderation.reviews import public_test

DETAILS_MAX = 2000
# "Other" says nothing by itself, so it needs a few words of explanation.
OTHER_DETAILS_MIN = 10
REASON_LABELS = {
    ReportReason.MALWARE: "Malware or a harmful file",
    ReportReason.SECRET_OR_PERSONAL_DATA: "A secret or personal data",
    ReportReason.COPYRIGHT: "Copyright infringement",
    ReportReason.HARASSMENT: "Harassment or abuse",
    ReportReason.SPAM: "Spam",
    ReportReason.MISLEADING: "Misleading or fabricated",
    ReportReason.OTHER: "Something else",
}


def _visible_evidence(session: Session, test: Test, evidence_id: object) -> EvidenceFile:
    """A file of this Test that readers can see; others are reported as not found."""
    evidence = session.get(EvidenceFile, evidence_id) if isinstance(evidence_id, str) else None
    if evidence is None or evidence.test_id != test.id or not readers_see(evidence, test):
        raise NotFound("evidence_not_found", "That file is not part of this Test.", "evidence_id")
    return evidence


def create_report(
    session: Session,
    actor: User | None,
    test_id: str,
    reason: object,
    details: object = "",
    evidence_id: str | None = None,
    *,
    per_hour: int,
) -> Report:
    """File a report; at most ``per_hour`` per user an hour, one open report per target."""
    user = require_active(actor, "report Tests")
    test = public_test(session, test_id)
    try:
        clean_reason = ReportReason(reason if isinstance(reason, str) else "")
    except ValueError:
        choices = ", ".join(item.value for item in ReportReason)
        raise Invalid("invalid_reason", f"Choose a reason: {choices}.", "reason") from None
    minimum = OTHER_DETAILS_MIN if clean_reason == ReportReason.OTHER else 0
    clean_details = clean_text(
        details,
        field="details",
        noun="The details",
        minimum=minimum,
        maximum=DETAILS_MAX,
        label="report details",
    )
    evidence = _visible_evidence(session, test, evidence_id) if evidence_id else None
    duplicate = session.exec(
        select(Report.id).where(
            Report.reporter_id == user.id,
            Report.test_id == test.id,
            Report.evidence_id == (evidence.id if evidence else None),
            Report.state == CaseState.OPEN,
        )
    ).first()
    if duplicate is not None:
        raise Conflict("already_reported", "You already reported this; moderators will look at it.")
    check_hourly_limit(session, Report, user.id, per_hour, "reports")
    report = Report(
        reporter_id=user.id,
        test_id=test.id,
        evidence_id=evidence.id if evidence else None,
        reason=clean_reason,
        details=clean_details,
    )
    session.add(report)
    audit(
        session,
        AuditAction.REPORT_CREATED,
        ("report", report.id),
        actor_id=user.id,
        detail={"test_id": test.id},
    )
    session.flush()
    return report


def decide_report(
    session: Session,
    actor: User | None,
    report_id: str,
    outcome: Literal["resolve", "dismiss"],
    reason: str,
) -> ModerationDecision:
    """Close a report: resolved (acted on) or dismissed (nothing to do)."""
    admin = require_admin(actor, "decide reports")
    clean = clean_reason(reason)
    report, _test = open_case(session, admin, Report, report_id)
    state = CaseState.RESOLVED if outcome == "resolve" else CaseState.DISMISSED
    return settle_case(session, admin, report, outcome, clean, (state, state.value))
