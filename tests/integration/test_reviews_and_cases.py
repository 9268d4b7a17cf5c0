"""Reviews, reports, disputes and roles on both engines: rules, limits and messages."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import Session, select

from benchmax.models import (
    AccountStatus,
    ModerationDecision,
    Review,
    ReviewerKind,
    ReviewState,
    Role,
    TestState,
    User,
)
from benchmax.models._base import utcnow
from benchmax.services.moderation import ModerationError, disputes, reports, reviews, roles
from tests.factories import make_evidence, make_report, make_review, make_test, make_user

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
    with pytest.raises(ModerationError, match="already been corrected") as refused:
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
        with pytest.raises(ModerationError, match=message):
            reviews.add_review(session, actor, test_id, score, reasoning, corrects)
    theirs = make_review(session, test, other)
    with pytest.raises(ModerationError, match="author or a moderator"):
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
    with pytest.raises(ModerationError) as refused:
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
        with pytest.raises(ModerationError, match=message):
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
    with pytest.raises(ModerationError, match="already has an open dispute"):
        disputes.open_dispute(
            session, contributor, first.id, "Again, it ignores my log.", per_hour=2
        )
    with pytest.raises(ModerationError, match="Only the Test's contributor"):
        disputes.open_dispute(session, reviewer, second.id, "I dislike this review.", per_hour=2)
    with pytest.raises(ModerationError, match="at least 10"):
        disputes.open_dispute(session, contributor, second.id, "Wrong.", per_hour=2)
    disputes.open_dispute(session, contributor, second.id, "It misses the video.", per_hour=2)
    with pytest.raises(ModerationError) as refused:
        disputes.open_dispute(session, contributor, third.id, "It misses the video.", per_hour=2)
    assert refused.value.status == 429


@BOTH
def test_roles_and_suspension_rules(session: Session) -> None:
    owner = make_user(session, role=Role.OWNER)
    moderator = make_user(session, role=Role.MODERATOR)
    other_moderator = make_user(session, role=Role.MODERATOR)
    user = make_user(session)

    roles.change_role(session, moderator, user.handle, "reviewer", REASON)
    assert user.role == Role.REVIEWER
    with pytest.raises(ModerationError, match="not allowed"):
        roles.change_role(session, moderator, user.handle, "moderator", REASON)
    with pytest.raises(ModerationError, match="configuration"):
        roles.change_role(session, owner, user.handle, "owner", REASON)
    with pytest.raises(ModerationError, match="Only an owner"):
        roles.suspend(session, moderator, other_moderator.handle, REASON)
    with pytest.raises(ModerationError, match="Owners"):
        roles.suspend(session, moderator, owner.handle, REASON)
    with pytest.raises(ModerationError, match="your own"):
        roles.suspend(session, owner, owner.handle, REASON)

    roles.suspend(session, moderator, user.handle, REASON)
    assert user.status == AccountStatus.SUSPENDED
    with pytest.raises(ModerationError, match="suspended, so you cannot review"):
        reviews.add_review(session, user, make_test(session).id, 50, REASONING)
    roles.suspend(session, owner, other_moderator.handle, REASON)
    roles.reinstate(session, owner, user.handle, "Appeal accepted after review.")
    assert user.status == AccountStatus.ACTIVE
    session.commit()
    actions = [d.action for d in session.exec(select(ModerationDecision)).all()]
    assert sorted(actions) == ["user.reinstate", "user.role", "user.suspend", "user.suspend"]
