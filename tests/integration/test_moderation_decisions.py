"""Moderation decisions on both engines: what they change, what they append, what they refuse."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlalchemy.exc import DatabaseError
from sqlmodel import Session, select

from benchmax.adapters.storage.local import LocalStorage
from benchmax.models import (
    AuditEvent,
    CaseState,
    CatalogModel,
    EvidenceState,
    Harness,
    ModelFamily,
    ModerationDecision,
    ModerationHold,
    Review,
    ReviewerKind,
    ReviewState,
    Role,
    TestState,
    User,
)
from benchmax.services import detail_view, feed
from benchmax.services.catalog.linking import link_declared_setup
from benchmax.services.errors import ServiceError
from benchmax.services.moderation import (
    disputes,
    holds,
    label_decisions,
    queues,
    records,
    reports,
    takedowns,
)
from tests.support.factories import (
    make_dispute,
    make_evidence,
    make_report,
    make_review,
    make_stored_evidence,
    make_test,
    make_user,
)
from usercontent_service.access import find_servable

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
REASON = "Contains a leaked personal address."


def _outcomes(session: Session, test_id: str) -> list[records.DecisionOutcome]:
    return records.decisions_for_tests(session, [test_id]).get(test_id, [])


def _moderator(session: Session) -> User:
    return make_user(session, role=Role.MODERATOR)


def _feed_ids(session: Session) -> set[str]:
    return {card.id for card in feed.list_feed(session, feed.FeedFilters()).items}


@BOTH
def test_removal_hides_everywhere_and_restore_brings_it_back(
    session: Session, tmp_path: Path
) -> None:
    storage = LocalStorage(tmp_path / "objects")
    moderator = _moderator(session)
    test = make_test(session)
    image = make_stored_evidence(session, storage, test, b"\x89PNG-bytes", kind="image")
    report = make_report(session, test, make_user(session))
    session.commit()
    engine = session.get_bind()
    assert isinstance(engine, Engine)
    assert find_servable(engine, storage, image.id) is not None

    decision = takedowns.remove_test(session, moderator, test.id, REASON, report.id)
    session.commit()

    assert test.state == TestState.REMOVED
    assert test.removed_at is not None
    assert REASON in test.failure_reason
    assert report.state == CaseState.RESOLVED
    assert (decision.previous_state, decision.next_state) == ("public", "removed")
    assert decision.report_id == report.id
    assert test.id not in _feed_ids(session)
    assert detail_view.get_test_view(session, test.id, None) is None
    assert detail_view.get_test_view(session, test.id, moderator.id) is None
    own_view = detail_view.get_test_view(session, test.id, test.contributor_id)
    assert own_view is not None
    assert REASON in own_view.failure_reason
    assert find_servable(engine, storage, image.id) is None
    [outcome] = _outcomes(session, test.id)
    assert (outcome.outcome, outcome.reason) == ("Removed by a moderator", REASON)

    takedowns.restore_test(session, moderator, test.id, "Address was a public office one.")
    session.commit()

    assert test.state == TestState.PUBLIC
    assert test.failure_reason == ""
    assert test.id in _feed_ids(session)
    assert find_servable(engine, storage, image.id) is not None
    assert [o.action for o in _outcomes(session, test.id)] == [
        "test.remove",
        "test.restore",
    ]
    audit = session.exec(select(AuditEvent).where(AuditEvent.subject_id == test.id)).all()
    assert {event.action for event in audit} == {
        "moderation.test.remove",
        "moderation.test.restore",
    }
    assert all(REASON not in str(event.detail) for event in audit)


@BOTH
def test_restore_is_refused_when_a_file_never_passed_safety(session: Session) -> None:
    moderator = _moderator(session)
    test = make_test(session, state=TestState.REMOVED)
    make_evidence(session, test, state=EvidenceState.QUARANTINED)
    never_published = make_test(session, state=TestState.REMOVED, published_at=None)

    for test_id in (test.id, never_published.id):
        with pytest.raises(ServiceError) as refused:
            takedowns.restore_test(session, moderator, test_id, REASON)
        assert refused.value.status == 409
        assert "cannot be restored" in refused.value.message
    assert session.exec(select(ModerationDecision)).all() == []


@BOTH
def test_blocking_a_file_keeps_the_test_public_while_the_evidence_rule_holds(
    session: Session,
) -> None:
    moderator = _moderator(session)
    test = make_test(session)
    bad, good = make_evidence(session, test), make_evidence(session, test)

    takedowns.block_evidence(session, moderator, bad.id, REASON)

    assert bad.state == EvidenceState.BLOCKED
    assert test.state == TestState.PUBLIC
    view = detail_view.get_test_view(session, test.id, None)
    assert view is not None
    assert [item.id for item in view.evidence] == [good.id]

    only_file = make_test(session, output_text="")
    sole = make_evidence(session, only_file)
    takedowns.block_evidence(session, moderator, sole.id, REASON)
    assert only_file.state == TestState.REMOVED
    actions = [o.action for o in _outcomes(session, only_file.id)]
    assert actions == ["evidence.block", "test.remove"]
    with pytest.raises(ServiceError, match="no output or approved file"):
        takedowns.restore_test(session, moderator, only_file.id, REASON)


@BOTH
def test_a_restored_test_with_a_moderator_blocked_file_is_safe(session: Session) -> None:
    moderator = _moderator(session)
    test = make_test(session)
    blocked = make_evidence(session, test)
    takedowns.block_evidence(session, moderator, blocked.id, REASON)
    takedowns.remove_test(session, moderator, test.id, REASON)
    takedowns.restore_test(session, moderator, test.id, REASON)
    assert test.state == TestState.PUBLIC
    assert blocked.state == EvidenceState.BLOCKED


@BOTH
def test_overturn_appends_a_correction_and_keeps_history(session: Session) -> None:
    moderator = _moderator(session)
    test = make_test(session, review_state=ReviewState.REVIEWED)
    review = make_review(session, test, make_user(session, role=Role.REVIEWER), score=20)
    dispute = make_dispute(session, review)
    session.commit()

    decision = disputes.decide_dispute(
        session, moderator, dispute.id, "overturn", "The log shows every test passing.", 85
    )
    session.commit()

    reviews = session.exec(select(Review).where(Review.test_id == test.id)).all()
    correction = next(r for r in reviews if r.id != review.id)
    assert (correction.corrects_review_id, correction.score) == (review.id, 85)
    assert correction.reviewer_kind == ReviewerKind.ADMIN
    assert review.score == 20  # the original is untouched
    assert dispute.state == CaseState.RESOLVED
    assert decision.dispute_id == dispute.id
    assert test.review_state == ReviewState.REVIEWED
    assert _outcomes(session, test.id)[0].action == "dispute.overturn"


def test_overturn_needs_a_score_and_a_reviewable_reason(session: Session) -> None:
    moderator = _moderator(session)
    dispute = make_dispute(session, make_review(session, make_test(session), make_user(session)))
    with pytest.raises(ServiceError, match="at least 20"):
        disputes.decide_dispute(session, moderator, dispute.id, "overturn", "Too short.", 50)
    with pytest.raises(ServiceError, match="whole number"):
        disputes.decide_dispute(
            session, moderator, dispute.id, "overturn", "A long enough reasoning here.", 101
        )
    disputes.decide_dispute(session, moderator, dispute.id, "uphold", "The review is fair.")
    assert dispute.state == CaseState.DISMISSED
    with pytest.raises(ServiceError, match="already decided"):
        disputes.decide_dispute(session, moderator, dispute.id, "uphold", "The review is fair.")


def test_moderators_never_decide_about_their_own_test_or_review(session: Session) -> None:
    moderator = _moderator(session)
    own = make_test(session, moderator)
    with pytest.raises(ServiceError) as refused:
        takedowns.remove_test(session, moderator, own.id, REASON)
    assert refused.value.code == "own_test"
    other = make_test(session)
    dispute = make_dispute(session, make_review(session, other, moderator))
    with pytest.raises(ServiceError) as refused:
        disputes.decide_dispute(session, moderator, dispute.id, "uphold", REASON)
    assert refused.value.code == "own_review"


@pytest.mark.parametrize(
    ("reason", "message"),
    [("short", "at least 10"), ("x" * 2001, "at most 2000"), ("   \u200b    ", "at least 10")],
)
def test_reasons_too_short_or_too_long_are_refused(
    session: Session, reason: str, message: str
) -> None:
    test = make_test(session)
    with pytest.raises(ServiceError, match=message) as refused:
        takedowns.remove_test(session, _moderator(session), test.id, reason)
    assert refused.value.field == "reason"
    assert test.state == TestState.PUBLIC


@BOTH
def test_injection_findings_and_holds_are_queued_and_decided(session: Session) -> None:
    moderator = _moderator(session)
    flagged = make_test(session)
    report = {"findings": [{"type": "injection", "code": "ignore_instructions", "line": 3}]}
    make_evidence(session, flagged, scan_report=report)
    make_evidence(session, make_test(session), scan_report={"findings": [{"type": "secret"}]})
    held = make_test(session)
    session.add(ModerationHold(test_id=held.id, reason_code="injection_signals"))
    session.commit()

    items = {item.test_id: item for item in queues.flagged_tests(session, 50)}
    assert set(items) == {flagged.id, held.id}
    assert items[flagged.id].finding_codes == ["ignore_instructions"]
    assert items[held.id].hold_codes == ["injection_signals"]

    holds.decide_hold(session, moderator, flagged.id, "keep", REASON)
    holds.decide_hold(session, moderator, held.id, "clear", REASON)
    session.commit()

    items = {item.test_id: item for item in queues.flagged_tests(session, 50)}
    assert set(items) == {flagged.id}
    assert items[flagged.id].kept
    hold_rows = session.exec(select(ModerationHold)).all()
    assert {(h.test_id, h.state) for h in hold_rows} == {
        (flagged.id, CaseState.OPEN),
        (held.id, CaseState.DISMISSED),
    }
    with pytest.raises(ServiceError, match="no open hold"):
        holds.decide_hold(session, moderator, make_test(session).id, "keep", REASON)


@BOTH
def test_mapping_a_label_relinks_matching_tests(session: Session) -> None:
    moderator = _moderator(session)
    family = ModelFamily(slug="acme", name="Acme")
    session.add(family)
    session.flush()
    model = CatalogModel(family_id=family.id, slug="acme-one", name="Acme One")
    harness = Harness(slug="rig", name="Rig")
    session.add_all([model, harness])
    first = make_test(session, model_label="Zorblax Ultra", harness_label="My Rig v2")
    second = make_test(session, model_label="zorblax-ultra", harness_label="My Rig v2")
    unrelated = make_test(session, model_label="Other Thing", harness_label="My Rig v2")
    for test in (first, second, unrelated):
        link_declared_setup(session, test)  # as publishing does
    session.commit()
    labels = {(item.kind, item.key) for item in queues.label_requests(session, 50)}
    assert ("model", "zorblax ultra") in labels

    label_decisions.map_label(session, moderator, "model", "Zorblax  ULTRA", "acme-one", REASON)
    label_decisions.leave_label_declared(session, moderator, "harness", "My Rig v2", REASON)
    session.commit()

    assert first.catalog_model_id == second.catalog_model_id == model.id
    assert first.family_id == family.id
    assert unrelated.catalog_model_id is None
    assert first.prompt.startswith("Write a haiku")  # the submission itself is untouched
    remaining = {(item.kind, item.key) for item in queues.label_requests(session, 50)}
    assert ("model", "zorblax ultra") not in remaining
    assert ("harness", "my rig v 2") not in remaining
    assert ("model", "other thing") in remaining
    with pytest.raises(ServiceError) as refused:
        label_decisions.map_label(session, moderator, "model", "zorblax ultra", "acme-one", REASON)
    assert refused.value.status == 409
    with pytest.raises(ServiceError) as refused:
        label_decisions.map_label(session, moderator, "harness", "Other Rig", "no-such", REASON)
    assert refused.value.status == 404


@BOTH
def test_decisions_written_by_services_cannot_be_edited_or_deleted(session: Session) -> None:
    moderator = _moderator(session)
    report = make_report(session, make_test(session), make_user(session))
    reports.decide_report(session, moderator, report.id, "dismiss", REASON)
    session.commit()
    decision = session.exec(select(ModerationDecision)).one()
    session.delete(decision)
    with pytest.raises(DatabaseError, match="append-only"):
        session.commit()
    session.rollback()
    event = session.exec(select(AuditEvent)).one()
    event.detail = {}
    with pytest.raises(DatabaseError, match="append-only"):
        session.commit()


def test_queues_list_open_reports_and_disputes_oldest_first(session: Session) -> None:
    moderator = _moderator(session)
    test = make_test(session)
    first = make_report(session, test, make_user(session))
    second = make_report(session, test, make_user(session))
    reports.decide_report(session, moderator, second.id, "resolve", REASON)
    dispute = make_dispute(session, make_review(session, test, make_user(session)))
    result = queues.moderation_queues(session, moderator)
    assert [item.id for item in result.reports] == [first.id]
    assert [item.id for item in result.disputes] == [dispute.id]
    with pytest.raises(ServiceError) as refused:
        queues.moderation_queues(session, make_user(session, role=Role.REVIEWER))
    assert refused.value.status == 403


@BOTH
def test_outcomes_for_many_tests_go_to_their_own_test_only(session: Session) -> None:
    moderator = _moderator(session)
    removed, blocked, elsewhere = make_test(session), make_test(session), make_test(session)
    bad = make_evidence(session, blocked)
    make_evidence(session, blocked)
    takedowns.remove_test(session, moderator, removed.id, REASON)
    takedowns.block_evidence(session, moderator, bad.id, REASON)
    takedowns.remove_test(session, moderator, elsewhere.id, REASON)

    outcomes = records.decisions_for_tests(session, [removed.id, blocked.id])

    assert {test_id: [o.action for o in rows] for test_id, rows in outcomes.items()} == {
        removed.id: ["test.remove"],
        blocked.id: ["evidence.block"],
    }
