"""Taking Tests and files down and putting Tests back: remove, restore, block a file.

A removed Test leaves the feed, the API and every listing (they show public Tests only) and
its files 404 on the user-content origin, which checks the Test's state on every request. A
Test comes back only if everything it would show passed safety.
"""

from __future__ import annotations

from sqlmodel import Session, select

from benchmax.models import (
    CaseState,
    EvidenceFile,
    EvidenceState,
    ModerationAction,
    ModerationDecision,
    Report,
    Test,
    TestState,
    User,
)
from benchmax.models._base import is_public_id, utcnow
from benchmax.services.errors import Conflict, NotFound
from benchmax.services.moderation.cases import (
    close_case,
    decided_test,
    open_report_for,
    outcome_line,
)
from benchmax.services.moderation.policy import clean_reason, require_admin
from benchmax.services.moderation.records import record_decision

MODERATOR_BLOCK_CODE = "moderator_blocked"
REMOVED_CODE = "removed_by_moderator"


def _evidence(session: Session, test: Test) -> list[EvidenceFile]:
    return list(session.exec(select(EvidenceFile).where(EvidenceFile.test_id == test.id)).all())


def _has_evidence(test: Test, files: list[EvidenceFile]) -> bool:
    """The publication rule: pasted output or at least one approved file."""
    return bool(test.output_text.strip()) or any(f.state == EvidenceState.APPROVED for f in files)


# The two decisions that change who can see a Test: (state before, state after) of each.
_VISIBILITY = {
    ModerationAction.TEST_REMOVE: ("public", "removed"),
    ModerationAction.TEST_RESTORE: ("removed", "public"),
}


def _change_visibility(
    session: Session,
    admin: User,
    test: Test,
    action: ModerationAction,
    reason: str,
    report: Report | None = None,
    outcome: str = "",
) -> ModerationDecision:
    """Remove a public Test (``outcome`` and the reason become the line its contributor
    reads) or make a removed one public again, settle ``report`` if one was named, and
    record the decision."""
    removing = action == ModerationAction.TEST_REMOVE
    test.state = TestState.REMOVED if removing else TestState.PUBLIC
    test.removed_at = utcnow() if removing else None
    test.failure_code = REMOVED_CODE if removing else ""
    test.failure_reason = outcome_line(outcome, reason) if removing else ""
    session.add(test)
    return record_decision(
        session,
        admin,
        action,
        ("test", test.id),
        reason,
        _VISIBILITY[action],
        report_id=_settle(session, report),
    )


def _settle(session: Session, report: Report | None) -> str | None:
    """Resolve the report a decision acts on; its id for the decision row."""
    if report is None:
        return None
    close_case(report, CaseState.RESOLVED, session)
    return report.id


def remove_test(
    session: Session, actor: User | None, test_id: str, reason: str, report_id: str | None = None
) -> ModerationDecision:
    """Take a public Test down; naming a report resolves it in the same decision."""
    admin = require_admin(actor, "remove Tests")
    clean = clean_reason(reason)
    test = decided_test(session, admin, test_id)
    if test.state != TestState.PUBLIC:
        raise Conflict("not_public", f"Only public Tests can be removed; this one is {test.state}.")
    report = open_report_for(session, report_id, test)
    outcome = "Removed by a moderator"
    return _change_visibility(
        session, admin, test, ModerationAction.TEST_REMOVE, clean, report, outcome
    )


def restore_problem(test: Test, files: list[EvidenceFile]) -> str | None:
    """Why a removed Test may not be public again, or None when it passed safety."""
    if test.published_at is None:
        return "it was never published, so it never passed safety processing"
    for file in files:
        settled = file.state in (EvidenceState.APPROVED, EvidenceState.REMOVED) or (
            file.state == EvidenceState.BLOCKED and file.block_code == MODERATOR_BLOCK_CODE
        )
        if not settled:
            return "one of its files did not pass safety processing"
    if not _has_evidence(test, files):
        return "it has no output or approved file left to show"
    return None


def restore_test(
    session: Session, actor: User | None, test_id: str, reason: str
) -> ModerationDecision:
    """Make a removed Test public again, only if everything it shows passed safety."""
    admin = require_admin(actor, "restore Tests")
    clean = clean_reason(reason)
    test = decided_test(session, admin, test_id)
    if test.state != TestState.REMOVED:
        raise Conflict("not_removed", "Only removed Tests can be restored.")
    problem = restore_problem(test, _evidence(session, test))
    if problem is not None:
        raise Conflict("unsafe_to_restore", f"This Test cannot be restored: {problem}.")
    return _change_visibility(session, admin, test, ModerationAction.TEST_RESTORE, clean)


def block_evidence(
    session: Session,
    actor: User | None,
    evidence_id: str,
    reason: str,
    report_id: str | None = None,
) -> ModerationDecision:
    """Stop serving one file. The Test stays public while it still has output or an approved
    file; a Test left with nothing to show is removed too, with its own decision."""
    admin = require_admin(actor, "block files")
    clean = clean_reason(reason)
    evidence = session.get(EvidenceFile, evidence_id) if is_public_id(evidence_id) else None
    if evidence is None:
        raise NotFound("evidence_not_found", "No file has this id.")
    test = decided_test(session, admin, evidence.test_id)
    if evidence.state != EvidenceState.APPROVED:
        raise Conflict(
            "not_approved", f"Only approved files can be blocked; this one is {evidence.state}."
        )
    report = open_report_for(session, report_id, test)
    evidence.state = EvidenceState.BLOCKED
    evidence.block_code = MODERATOR_BLOCK_CODE
    evidence.block_reason = outcome_line("Blocked by a moderator", clean)
    evidence.updated_at = utcnow()
    session.add(evidence)
    decision = record_decision(
        session,
        admin,
        ModerationAction.EVIDENCE_BLOCK,
        ("evidence", evidence.id),
        clean,
        ("approved", "blocked"),
        report_id=_settle(session, report),
    )
    if test.state == TestState.PUBLIC and not _has_evidence(test, _evidence(session, test)):
        outcome = "Removed: its only evidence was blocked by a moderator"
        _change_visibility(session, admin, test, ModerationAction.TEST_REMOVE, clean, None, outcome)
    return decision
