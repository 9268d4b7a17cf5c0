"""Reviews, reports, disputes and roles on both engines: rules, limits and messages."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from benchmax.models import (
    AccountStatus,
    AuditEvent,
    CaseState,
    Dispute,
    ModerationDecision,
    Report,
    Review,
    ReviewerKind,
    ReviewState,
    Role,
    Test,
    TestState,
    User,
)
from benchmax.models._base import utcnow
from benchmax.services.errors import ServiceError
from benchmax.services.moderation import disputes, filing, rate_limits, reports, reviews, roles
from tests.support.factories import (
    make_dispute,
    make_evidence,
    make_report,
    make_review,
    make_test,
    make_user,
)

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
REASONING = "Every requirement of the prompt is met and shown."
REASON = "Repeated spam across many Tests."


@BOTH
def test_reviews_mark_the_test_reviewed_and_corrections_supersede(session: Session) -> None:
    test = make_test(session)
    reviewer = make_user(session, role=Role.REVIEWER)
    moderator = make_user(session, role=Role.MODERATOR)

    first = reviews.add_review(session, reviewer, test.id, "60", REASONING)
    assert (first.reviewer_kind, test.review_state) == (ReviewerKind.HUMAN, ReviewState.REVIEWED)
    fixed = reviews.add_review(session, reviewer, test.id, 65, REASONING, first.id)
    admin = reviews.add_review(session, moderator, test.id, 90, REASONING, fixed.id)
    session.commit()

    history = reviews.review_history(session, test.id)
    assert [(e.id, e.superseded) for e in history] == [
        (first.id, True),
        (fixed.id, True),
        (admin.id, False),
    ]
    assert history[2].reviewer_kind == "admin"
    assert history[2].corrects_review_id == fixed.id
    with pytest.raises(ServiceError, match="already been corrected") as refused:
        reviews.add_review(session, moderator, test.id, 10, REASONING, first.id)
    assert refused.value.status == 409


def test_review_rules(session: Session) -> None:
    reviewer = make_user(session, role=Role.REVIEWER)
    other = make_user(session, role=Role.REVIEWER)
    own = make_test(session, reviewer)
    test = make_test(session)
    private = make_test(session, state=TestState.PROCESSING)
    cases = [
        (reviewer, own.id, 50, REASONING, None, "own Test"),
        (reviewer, private.id, 50, REASONING, None, "No public Test"),
        (reviewer, test.id, 101, REASONING, None, "whole number"),
        (reviewer, test.id, True, REASONING, None, "whole number"),
        (reviewer, test.id, 50, "too short", None, "at least 20"),
        (reviewer, test.id, 50, "x" * 5001, None, "at most 5000"),
        (make_user(session), test.id, 50, REASONING, None, "Only approved reviewers"),
        (None, test.id, 50, REASONING, None, "Sign in"),
    ]
    for actor, test_id, score, reasoning, corrects, message in cases:
        with pytest.raises(ServiceError, match=message):
            reviews.add_review(session, actor, test_id, score, reasoning, corrects)
    theirs = make_review(session, test, other)
    with pytest.raises(ServiceError, match="author or a moderator"):
        reviews.add_review(session, reviewer, test.id, 50, REASONING, theirs.id)
    assert session.exec(select(Review)).all() == [theirs]
    assert test.review_state == ReviewState.AWAITING


@BOTH
def test_reports_are_rate_limited_per_hour(session: Session) -> None:
    reporter = make_user(session)
    tests = [make_test(session) for _ in range(4)]
    old = make_report(session, tests[0], reporter)
    old.created_at = utcnow() - timedelta(hours=2)  # outside the window
    session.add(old)
    session.flush()
    for test in tests[1:3]:
        reports.create_report(session, reporter, test.id, "spam", per_hour=2)
    with pytest.raises(ServiceError) as refused:
        reports.create_report(session, reporter, tests[3].id, "spam", per_hour=2)
    assert refused.value.status == 429
    assert "at most 2 reports an hour" in refused.value.message
    reports.create_report(session, make_user(session), tests[3].id, "spam", per_hour=2)


def test_report_targets_and_reasons(session: Session) -> None:
    reporter = make_user(session)
    test = make_test(session)
    file = make_evidence(session, test)
    foreign = make_evidence(session, make_test(session))
    report = reports.create_report(
        session, reporter, test.id, "malware", "  exe inside  ", file.id, per_hour=10
    )
    assert (report.evidence_id, report.details) == (file.id, "exe inside")
    cases = [
        (reporter, test.id, "malware", "", file.id, "already reported"),
        (reporter, test.id, "malware", "", foreign.id, "not part of this Test"),
        (reporter, test.id, "nonsense", "", None, "Choose a reason"),
        (reporter, test.id, "other", "why?", None, "at least 10"),
        (reporter, test.id, "spam", "x" * 2001, None, "at most 2000"),
        (
            make_user(session, status=AccountStatus.SUSPENDED),
            test.id,
            "spam",
            "",
            None,
            "suspended",
        ),
    ]
    for actor, test_id, reason, details, evidence_id, message in cases:
        with pytest.raises(ServiceError, match=message):
            reports.create_report(
                session, actor, test_id, reason, details, evidence_id, per_hour=10
            )


@BOTH
def test_disputes_one_open_per_review_and_rate_limited(session: Session) -> None:
    test = make_test(session)
    contributor = session.get(User, test.contributor_id)
    reviewer = make_user(session, role=Role.REVIEWER)
    first, second, third = (make_review(session, test, reviewer) for _ in range(3))
    dispute = disputes.open_dispute(
        session, contributor, first.id, "It ignores my log.", per_hour=2
    )
    assert dispute.test_id == test.id
    with pytest.raises(ServiceError, match="already has an open dispute"):
        disputes.open_dispute(
            session, contributor, first.id, "Again, it ignores my log.", per_hour=2
        )
    with pytest.raises(ServiceError, match="Only the Test's contributor"):
        disputes.open_dispute(session, reviewer, second.id, "I dislike this review.", per_hour=2)
    with pytest.raises(ServiceError, match="at least 10"):
        disputes.open_dispute(session, contributor, second.id, "Wrong.", per_hour=2)
    disputes.open_dispute(session, contributor, second.id, "It misses the video.", per_hour=2)
    with pytest.raises(ServiceError) as refused:
        disputes.open_dispute(session, contributor, third.id, "It misses the video.", per_hour=2)
    assert refused.value.status == 429


def _disputes_of(session: Session, review: Review) -> list[Dispute]:
    return list(
        session.exec(
            select(Dispute).where(Dispute.review_id == review.id).order_by(col(Dispute.created_at))
        ).all()
    )


def _disputable_review(session: Session) -> tuple[Review, User]:
    """A review on a public Test, and the Test's contributor, who may dispute it."""
    test = make_test(session)
    contributor = session.get(User, test.contributor_id)
    assert contributor is not None
    return make_review(session, test, make_user(session, role=Role.REVIEWER)), contributor


@BOTH
def test_the_database_refuses_a_second_open_dispute_on_a_review(session: Session) -> None:
    review, _ = _disputable_review(session)
    make_dispute(session, review)
    with pytest.raises(IntegrityError), session.begin_nested():
        make_dispute(session, review)  # straight into the session: no service check, no lock
    session.commit()
    assert len(_disputes_of(session, review)) == 1


@BOTH
def test_decided_disputes_do_not_block_a_new_one(session: Session) -> None:
    review, contributor = _disputable_review(session)
    make_dispute(session, review, state=CaseState.RESOLVED, closed_at=utcnow())
    first = disputes.open_dispute(session, contributor, review.id, "It ignores my log.", per_hour=5)
    moderator = make_user(session, role=Role.MODERATOR)
    disputes.decide_dispute(session, moderator, first.id, "uphold", "The log was read in full.")
    disputes.open_dispute(session, contributor, review.id, "It ignores my video.", per_hour=5)
    session.commit()
    states = [dispute.state for dispute in _disputes_of(session, review)]
    assert states == [CaseState.RESOLVED, CaseState.DISMISSED, CaseState.OPEN]


@BOTH
def test_a_dispute_the_index_refuses_gets_the_same_409_and_the_caller_keeps_its_work(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    review, contributor = _disputable_review(session)
    report = make_report(session, make_test(session), make_user(session))  # the caller's work
    sneaked: list[Dispute] = []

    def sneak_in(*_args: Any) -> None:
        # A code path that skipped the check opens one after the service's pre-check passed.
        sneaked.append(make_dispute(session, review))

    monkeypatch.setattr(filing, "check_hourly_limit", sneak_in)
    with pytest.raises(ServiceError, match="already has an open dispute") as refused:
        disputes.open_dispute(session, contributor, review.id, "It ignores my log.", per_hour=5)
    assert (refused.value.code, refused.value.status) == ("dispute_open", 409)
    assert isinstance(refused.value.__context__, IntegrityError)
    session.commit()  # the refused insert was only rolled back to its savepoint
    assert _disputes_of(session, review) == sneaked
    assert session.exec(select(Report.id)).all() == [report.id]
    assert not session.exec(select(AuditEvent).where(AuditEvent.action == "dispute.opened")).all()


def _race(
    engine: Engine, review: Review, contributor: User, before_call: Callable[[], object]
) -> list[str]:
    """Two sessions on two threads dispute ``review`` at once; what each caller was told."""

    def attempt(reason: str) -> str:
        with Session(engine, expire_on_commit=False) as own:
            actor = own.get(User, contributor.id)
            before_call()
            try:
                disputes.open_dispute(own, actor, review.id, reason, per_hour=5)
            except ServiceError as refused:
                return f"{refused.status} {refused.code}"
            own.commit()
            return "opened"

    with ThreadPoolExecutor(max_workers=2) as pool:
        return sorted(pool.map(attempt, ["It ignores my log.", "It ignores my video."]))


@BOTH
def test_concurrent_disputes_on_one_review_open_exactly_one(
    engine: Engine, session: Session
) -> None:
    review, contributor = _disputable_review(session)
    session.commit()
    start = threading.Barrier(2, timeout=30)
    assert _race(engine, review, contributor, start.wait) == ["409 dispute_open", "opened"]
    assert len(_disputes_of(session, review)) == 1


@BOTH
def test_the_index_alone_stops_a_race_that_passed_the_check(
    engine: Engine, session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the row lock both callers pass the friendly check; the index refuses one."""
    review, contributor = _disputable_review(session)
    session.commit()
    both_checked = threading.Barrier(2, timeout=30)
    check_hourly_limit = rate_limits.check_hourly_limit

    def unlocked(test_session: Session, test_id: str, *, lock: bool = False) -> Test:
        return reviews.public_test(test_session, test_id)

    def after_both_checked(*args: Any) -> None:
        both_checked.wait()  # reached only once both callers found no open dispute
        check_hourly_limit(*args)

    monkeypatch.setattr(disputes, "public_test", unlocked)
    monkeypatch.setattr(filing, "check_hourly_limit", after_both_checked)
    assert _race(engine, review, contributor, lambda: None) == ["409 dispute_open", "opened"]
    assert len(_disputes_of(session, review)) == 1


@BOTH
def test_roles_and_suspension_rules(session: Session) -> None:
    owner = make_user(session, role=Role.OWNER)
    moderator = make_user(session, role=Role.MODERATOR)
    other_moderator = make_user(session, role=Role.MODERATOR)
    user = make_user(session)

    roles.change_role(session, moderator, user.handle, "reviewer", REASON)
    assert user.role == Role.REVIEWER
    with pytest.raises(ServiceError, match="not allowed"):
        roles.change_role(session, moderator, user.handle, "moderator", REASON)
    with pytest.raises(ServiceError, match="configuration"):
        roles.change_role(session, owner, user.handle, "owner", REASON)
    with pytest.raises(ServiceError, match="Only an owner"):
        roles.suspend(session, moderator, other_moderator.handle, REASON)
    with pytest.raises(ServiceError, match="Owners"):
        roles.suspend(session, moderator, owner.handle, REASON)
    with pytest.raises(ServiceError, match="your own"):
        roles.suspend(session, owner, owner.handle, REASON)

    roles.suspend(session, moderator, user.handle, REASON)
    assert user.status == AccountStatus.SUSPENDED
    with pytest.raises(ServiceError, match="suspended, so you cannot review"):
        reviews.add_review(session, user, make_test(session).id, 50, REASONING)
    roles.suspend(session, owner, other_moderator.handle, REASON)
    roles.reinstate(session, owner, user.handle, "Appeal accepted after review.")
    assert user.status == AccountStatus.ACTIVE
    session.commit()
    actions = [d.action for d in session.exec(select(ModerationDecision)).all()]
    assert sorted(actions) == ["user.reinstate", "user.role", "user.suspend", "user.suspend"]


@BOTH
def test_the_test_page_learns_which_reviews_are_disputed_in_one_query(session: Session) -> None:
    test = make_test(session)
    reviewer = make_user(session)
    disputed, decided, quiet = (make_review(session, test, reviewer) for _ in range(3))
    make_dispute(session, disputed)
    make_dispute(session, decided, state=CaseState.DISMISSED)
    other_test_review = make_review(session, make_test(session), reviewer)
    make_dispute(session, other_test_review)

    found = disputes.reviews_with_open_disputes(session, [disputed.id, decided.id, quiet.id])

    assert found == {disputed.id}
    assert disputes.reviews_with_open_disputes(session, []) == set()
