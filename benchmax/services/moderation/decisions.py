"""Moderation decisions on Tests, files, reports, disputes, holds and labels.

Each decision needs a written reason and appends one ``ModerationDecision`` (with the state
before and after) and one audit event. Rows that carry state — a Test's visibility, a file's
state, a case's state — change; the submission's prompt, output and bytes never do, and
nothing is deleted. A removed Test leaves the feed, the API and every listing (they show
public Tests only) and its files 404 on the user-content origin, which checks the Test's
state on every request.

A moderator never decides a case about their own Test, nor a dispute about their own review.
"""

from __future__ import annotations

from typing import Literal

from sqlmodel import Session, col, select

from benchmax.models import (
    CaseState,
    CatalogModel,
    Dispute,
    EvidenceFile,
    EvidenceState,
    Harness,
    LabelKind,
    LabelMapping,
    ModerationDecision,
    ModerationHold,
    Report,
    Review,
    Test,
    TestState,
    User,
)
from benchmax.models._base import is_public_id, utcnow
from benchmax.services.catalog import link_declared_setup
from benchmax.services.labels import MAPPING_KEY_LENGTH, label_key
from benchmax.services.moderation.errors import ModerationError
from benchmax.services.moderation.policy import (
    REASON_MAX,
    clean_reason,
    clean_text,
    refuse_secrets,
    require_admin,
)
from benchmax.services.moderation.queues import (
    LEAVE_LABEL_ACTION,
    injection_codes_for_test,
    label_target_id,
)
from benchmax.services.moderation.records import record_decision
from benchmax.services.moderation.reviews import (
    REASONING_MIN,
    append_review,
    latest_in_chain,
    parse_score,
)

MODERATOR_BLOCK_CODE = "moderator_blocked"
REMOVED_CODE = "removed_by_moderator"
INJECTION_HOLD_CODE = "injection_signals"
_FAILURE_REASON_MAX = 500  # Test.failure_reason and EvidenceFile.block_reason columns


def _outcome_line(outcome: str, reason: str) -> str:
    """What the contributor reads beside their Test: the outcome and the moderator's words."""
    line = f"{outcome}. Reason: {reason}"
    return line if len(line) <= _FAILURE_REASON_MAX else line[: _FAILURE_REASON_MAX - 1] + "…"


def _test(session: Session, admin: User, test_id: object) -> Test:
    """The Test a decision is about, locked until commit; never the moderator's own."""
    found = isinstance(test_id, str) and is_public_id(test_id)
    test = session.get(Test, test_id, with_for_update=True) if found else None
    if test is None:
        raise ModerationError("test_not_found", "No Test has this id.", 404)
    if test.contributor_id == admin.id:
        raise ModerationError(
            "own_test", "This is your own Test; another moderator must decide.", 403
        )
    return test


def _report_for(session: Session, report_id: str | None, test: Test) -> Report | None:
    """The open report a decision settles, when one was named; it must be about this Test."""
    if report_id is None:
        return None
    report = session.get(Report, report_id) if is_public_id(report_id) else None
    if report is None or report.test_id != test.id:
        raise ModerationError(
            "report_not_found", "That report is not about this Test.", 404, "report_id"
        )
    if report.state != CaseState.OPEN:
        raise ModerationError("report_closed", "That report was already decided.", 409)
    return report


def _close(case: Report | Dispute | ModerationHold, state: CaseState, session: Session) -> None:
    case.state = state
    case.closed_at = utcnow()
    session.add(case)


def _evidence(session: Session, test: Test) -> list[EvidenceFile]:
    return list(session.exec(select(EvidenceFile).where(EvidenceFile.test_id == test.id)).all())


def _has_evidence(test: Test, files: list[EvidenceFile]) -> bool:
    """The publication rule: pasted output or at least one approved file."""
    return bool(test.output_text.strip()) or any(f.state == EvidenceState.APPROVED for f in files)


def _hide(session: Session, test: Test, outcome: str, reason: str) -> None:
    test.state = TestState.REMOVED
    test.removed_at = utcnow()
    test.failure_code = REMOVED_CODE
    test.failure_reason = _outcome_line(outcome, reason)
    session.add(test)


def remove_test(
    session: Session, actor: User | None, test_id: str, reason: str, report_id: str | None = None
) -> ModerationDecision:
    """Take a public Test down; naming a report resolves it in the same decision."""
    admin = require_admin(actor, "remove Tests")
    clean = clean_reason(reason)
    test = _test(session, admin, test_id)
    if test.state != TestState.PUBLIC:
        raise ModerationError(
            "not_public", f"Only public Tests can be removed; this one is {test.state}.", 409
        )
    report = _report_for(session, report_id, test)
    _hide(session, test, "Removed by a moderator", clean)
    if report is not None:
        _close(report, CaseState.RESOLVED, session)
    return record_decision(
        session,
        admin,
        "test.remove",
        ("test", test.id),
        clean,
        ("public", "removed"),
        report_id=report.id if report else None,
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
    test = _test(session, admin, test_id)
    if test.state != TestState.REMOVED:
        raise ModerationError("not_removed", "Only removed Tests can be restored.", 409)
    problem = restore_problem(test, _evidence(session, test))
    if problem is not None:
        raise ModerationError("unsafe_to_restore", f"This Test cannot be restored: {problem}.", 409)
    test.state = TestState.PUBLIC
    test.removed_at = None
    test.failure_code = test.failure_reason = ""
    session.add(test)
    return record_decision(
        session, admin, "test.restore", ("test", test.id), clean, ("removed", "public")
    )


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
        raise ModerationError("evidence_not_found", "No file has this id.", 404)
    test = _test(session, admin, evidence.test_id)
    if evidence.state != EvidenceState.APPROVED:
        raise ModerationError(
            "not_approved",
            f"Only approved files can be blocked; this one is {evidence.state}.",
            409,
        )
    report = _report_for(session, report_id, test)
    evidence.state = EvidenceState.BLOCKED
    evidence.block_code = MODERATOR_BLOCK_CODE
    evidence.block_reason = _outcome_line("Blocked by a moderator", clean)
    evidence.updated_at = utcnow()
    session.add(evidence)
    if report is not None:
        _close(report, CaseState.RESOLVED, session)
    decision = record_decision(
        session,
        admin,
        "evidence.block",
        ("evidence", evidence.id),
        clean,
        ("approved", "blocked"),
        report_id=report.id if report else None,
    )
    if test.state == TestState.PUBLIC and not _has_evidence(test, _evidence(session, test)):
        _hide(session, test, "Removed: its only evidence was blocked by a moderator", clean)
        record_decision(
            session, admin, "test.remove", ("test", test.id), clean, ("public", "removed")
        )
    return decision


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
    report = session.get(Report, report_id) if is_public_id(report_id) else None
    if report is None:
        raise ModerationError("report_not_found", "No report has this id.", 404)
    _test(session, admin, report.test_id)
    if report.state != CaseState.OPEN:
        raise ModerationError("report_closed", "That report was already decided.", 409)
    state = CaseState.RESOLVED if outcome == "resolve" else CaseState.DISMISSED
    _close(report, state, session)
    return record_decision(
        session,
        admin,
        f"report.{outcome}",
        ("report", report.id),
        clean,
        ("open", state.value),
        report_id=report.id,
    )


def decide_dispute(
    session: Session,
    actor: User | None,
    dispute_id: str,
    outcome: Literal["uphold", "overturn"],
    reason: str,
    score: object = None,
) -> ModerationDecision:
    """Uphold the disputed review (it stands) or overturn it: a correction by the moderator,
    with ``score`` and the reason as its reasoning, is appended to the review's history."""
    admin = require_admin(actor, "decide disputes")
    dispute = session.get(Dispute, dispute_id) if is_public_id(dispute_id) else None
    if dispute is None:
        raise ModerationError("dispute_not_found", "No dispute has this id.", 404)
    test = _test(session, admin, dispute.test_id)
    if dispute.state != CaseState.OPEN:
        raise ModerationError("dispute_closed", "That dispute was already decided.", 409)
    review = session.get(Review, dispute.review_id)
    assert review is not None  # a foreign key guarantees it
    if review.reviewer_id == admin.id:
        raise ModerationError(
            "own_review", "You wrote this review; another moderator must decide.", 403
        )
    if outcome == "uphold":
        clean = clean_reason(reason)
        _close(dispute, CaseState.DISMISSED, session)
        states = ("open", "review_upheld")
    else:
        clean = clean_text(
            reason,
            field="reason",
            noun="The reason, which becomes the correcting review,",
            minimum=REASONING_MIN,
            maximum=REASON_MAX,
        )
        clean_score = parse_score(score)
        if test.state != TestState.PUBLIC:
            raise ModerationError(
                "not_public", "Only a public Test's reviews can be corrected.", 409
            )
        append_review(session, test, admin, clean_score, clean, latest_in_chain(session, review))
        _close(dispute, CaseState.RESOLVED, session)
        states = ("open", "review_overturned")
    return record_decision(
        session,
        admin,
        f"dispute.{outcome}",
        ("dispute", dispute.id),
        clean,
        states,
        dispute_id=dispute.id,
    )


def decide_hold(
    session: Session,
    actor: User | None,
    test_id: str,
    outcome: Literal["keep", "clear"],
    reason: str,
) -> ModerationDecision:
    """Keep a Test out of rankings (opening a hold for unheld injection findings) or clear
    it (closing its open holds)."""
    admin = require_admin(actor, "decide holds")
    clean = clean_reason(reason)
    test = _test(session, admin, test_id)
    holds = list(
        session.exec(
            select(ModerationHold).where(
                ModerationHold.test_id == test.id, ModerationHold.state == CaseState.OPEN
            )
        ).all()
    )
    if not holds and not injection_codes_for_test(session, test.id):
        raise ModerationError(
            "nothing_to_decide", "This Test has no open hold or injection findings.", 404
        )
    previous = "held" if holds else "flagged"
    if outcome == "keep":
        if not holds:
            session.add(ModerationHold(test_id=test.id, reason_code=INJECTION_HOLD_CODE))
        next_state = "held"
    else:
        for hold in holds:
            _close(hold, CaseState.DISMISSED, session)
        next_state = "cleared"
    return record_decision(
        session, admin, f"hold.{outcome}", ("test", test.id), clean, (previous, next_state)
    )


def _label(kind: object, label: object) -> tuple[LabelKind, str]:
    try:
        clean_kind = LabelKind(kind if isinstance(kind, str) else "")
    except ValueError:
        raise ModerationError("invalid_kind", "Choose model or harness.", 400, "kind") from None
    text = label if isinstance(label, str) else ""
    # Checked as typed: the stored key is case-folded, which can hide a key from the rules.
    refuse_secrets(text, field="label", label="label")
    key = label_key(text, MAPPING_KEY_LENGTH)
    if not key:
        raise ModerationError("invalid_label", "Give the declared label to map.", 400, "label")
    return clean_kind, key


def _relink(session: Session, kind: LabelKind, key: str) -> None:
    """Re-run catalog linking on unlinked Tests whose label could now match; linking itself
    decides (a key contained in a longer one is only a candidate)."""
    link, key_column = (
        (Test.catalog_model_id, Test.model_key)
        if kind == LabelKind.MODEL
        else (Test.harness_id, Test.harness_key)
    )
    for test in session.exec(
        select(Test).where(col(link).is_(None), col(key_column).contains(key, autoescape=True))
    ).all():
        link_declared_setup(session, test)
        session.add(test)


def map_label(
    session: Session, actor: User | None, kind: object, label: object, target: str, reason: str
) -> ModerationDecision:
    """Map a declared label to a catalog model or harness (by slug) and re-link its Tests."""
    admin = require_admin(actor, "map labels")
    clean = clean_reason(reason)
    clean_kind, key = _label(kind, label)
    existing = session.exec(
        select(LabelMapping).where(
            LabelMapping.kind == clean_kind, LabelMapping.normalized_label == key
        )
    ).first()
    if existing is not None:
        raise ModerationError("already_mapped", "That label already maps to a catalog entry.", 409)
    mapping = LabelMapping(kind=clean_kind, normalized_label=key)
    if clean_kind == LabelKind.MODEL:
        model = session.exec(select(CatalogModel).where(CatalogModel.slug == target)).first()
        if model is None:
            raise ModerationError(
                "target_not_found", "No catalog model has that slug.", 404, "target"
            )
        mapping.model_id = model.id
    else:
        harness = session.exec(select(Harness).where(Harness.slug == target)).first()
        if harness is None:
            raise ModerationError("target_not_found", "No harness has that slug.", 404, "target")
        mapping.harness_id = harness.id
    session.add(mapping)
    session.flush()
    _relink(session, clean_kind, key)
    return record_decision(
        session, admin, "label.map", ("label_mapping", mapping.id), clean, ("unmatched", "mapped")
    )


def leave_label_declared(
    session: Session, actor: User | None, kind: object, label: object, reason: str
) -> ModerationDecision:
    """Decide a label stays as declared; it leaves the label queue but keeps its Tests."""
    admin = require_admin(actor, "decide labels")
    clean = clean_reason(reason)
    clean_kind, key = _label(kind, label)
    return record_decision(
        session,
        admin,
        LEAVE_LABEL_ACTION,
        ("label", label_target_id(clean_kind.value, key)),
        clean,
        ("unmatched", "declared"),
    )
