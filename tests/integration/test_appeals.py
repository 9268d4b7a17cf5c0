"""Appeals against removals on both engines: who may appeal, what is refused, how a
moderator's answer is recorded (a new decision; the removal is never edited), and the open
queue counts the header shows."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from benchmax.models import (
    Appeal,
    AuditEvent,
    CaseState,
    ModerationAction,
    ModerationDecision,
    Role,
    Test,
    TestState,
    User,
)
from benchmax.services.errors import ServiceError
from benchmax.services.moderation import appeals, queues, records, takedowns
from benchmax.services.moderation.nav_counts import NavCounts, nav_counts
from tests.support.factories import make_evidence, make_report, make_test, make_user
from tests.unit.safety.corpus import canary_fragment, canary_key

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
REMOVAL = "Contains a leaked personal address."
APPEAL = "The address is our company's public office, printed on our website."
GRANT = "The address is public; the removal was a mistake."


def _removed(session: Session) -> tuple[User, User, Test]:
    moderator = make_user(session, role=Role.MODERATOR)
    author = make_user(session, handle="ada")
    test = make_test(session, author, title="Appealed Test")
    takedowns.remove_test(session, moderator, test.id, REMOVAL)
    session.commit()
    return moderator, author, test


def _refused(call: object, *args: object, **kwargs: object) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        call(*args, **kwargs)  # type: ignore[operator]
    return caught.value


@BOTH
def test_an_appeal_lands_in_the_queue_and_a_grant_restores_the_test(session: Session) -> None:
    moderator, author, test = _removed(session)
    removal = session.exec(select(ModerationDecision)).one()

    appeal = appeals.open_appeal(session, author, test.id, f"  {APPEAL}  ", per_hour=3)
    session.commit()

    assert (appeal.reason, appeal.removal_id) == (APPEAL, removal.id)
    [item] = queues.moderation_queues(session, moderator).appeals
    assert (item.id, item.test_id, item.test_title) == (appeal.id, test.id, "Appealed Test")
    assert (item.contributor_handle, item.removal_reason) == ("ada", REMOVAL)
    assert nav_counts(session, moderator).moderation == 1  # the header counts the appeal

    decision = appeals.decide_appeal(session, moderator, appeal.id, "grant", GRANT)
    session.commit()

    session.refresh(test)
    assert test.state == TestState.PUBLIC
    assert decision.action == ModerationAction.APPEAL_GRANT
    assert (decision.target_type, decision.target_id) == ("appeal", appeal.id)
    assert (decision.previous_state, decision.next_state) == ("open", "granted")
    actions = [row.action for row in session.exec(select(ModerationDecision)).all()]
    assert sorted(actions) == sorted(["test.remove", "test.restore", "appeal.grant"])
    # The removal row is as it was: an answer is a new record.
    session.refresh(removal)
    assert (removal.action, removal.reason) == (ModerationAction.TEST_REMOVE, REMOVAL)
    assert session.get(Appeal, appeal.id).state == CaseState.RESOLVED  # type: ignore[union-attr]
    assert queues.moderation_queues(session, moderator).appeals == []
    outcomes = [o.outcome for o in records.decisions_for_tests(session, [test.id])[test.id]]
    assert "Your appeal was granted; the Test is public again" in outcomes
    opened = session.exec(select(AuditEvent).where(AuditEvent.action == "appeal.opened")).one()
    assert opened.detail == {"test_id": test.id, "removal_id": removal.id}


@BOTH
def test_a_rejected_appeal_leaves_the_removal_and_cannot_be_sent_again(session: Session) -> None:
    moderator, author, test = _removed(session)
    appeal = appeals.open_appeal(session, author, test.id, APPEAL, per_hour=3)
    decision = appeals.decide_appeal(
        session, moderator, appeal.id, "reject", "The address is private."
    )
    session.commit()

    session.refresh(test)
    assert test.state == TestState.REMOVED
    assert decision.next_state == "rejected"
    assert appeals.appeal_states(session, [test.id]) == {test.id: "answered"}
    again = _refused(appeals.open_appeal, session, author, test.id, APPEAL, per_hour=3)
    assert again.code == "appeal_decided"
    decided = _refused(appeals.decide_appeal, session, moderator, appeal.id, "reject", GRANT)
    assert decided.code == "appeal_closed"


@BOTH
def test_bad_appeals_are_refused_and_nothing_is_stored(session: Session) -> None:
    _, author, test = _removed(session)
    stranger = make_user(session)
    public = make_test(session, author)
    key = canary_key()
    cases = [
        (stranger, test.id, APPEAL, "not_allowed"),  # someone else's Test → Forbidden
        (author, public.id, APPEAL, "not_removed"),
        (author, test.id, "", "reason_too_short"),
        (author, test.id, "   \u200b\n\t ", "reason_too_short"),
        (author, test.id, "Please.", "reason_too_short"),
        (author, test.id, "x" * 2001, "reason_too_long"),
        (author, test.id, f"My key is {key}, please restore the Test", "secret_detected"),
        (author, test.id, None, "reason_too_short"),
        (author, "nonexistent-id!", APPEAL, "test_not_found"),
        (None, test.id, APPEAL, "sign_in_required"),
    ]
    for actor, test_id, text, code in cases:
        error = _refused(appeals.open_appeal, session, actor, test_id, text, per_hour=3)
        assert error.code == code, (test_id, text)
        assert canary_fragment(key) not in error.message
    assert (
        _refused(appeals.open_appeal, session, stranger, test.id, APPEAL, per_hour=3).status == 403
    )
    session.rollback()
    assert session.exec(select(Appeal)).all() == []
    events = session.exec(select(AuditEvent).where(AuditEvent.action == "appeal.opened")).all()
    assert events == []


@BOTH
def test_one_open_appeal_per_test_and_an_hourly_cap(session: Session) -> None:
    moderator, author, test = _removed(session)
    appeals.open_appeal(session, author, test.id, APPEAL, per_hour=3)
    session.commit()
    second = _refused(appeals.open_appeal, session, author, test.id, APPEAL + " Again.", per_hour=3)
    assert second.code == "appeal_open"
    others = [make_test(session, author) for _ in range(2)]
    for other in others:
        takedowns.remove_test(session, moderator, other.id, REMOVAL)
    appeals.open_appeal(session, author, others[0].id, APPEAL, per_hour=2)
    session.commit()
    capped = _refused(appeals.open_appeal, session, author, others[1].id, APPEAL, per_hour=2)
    assert (capped.code, capped.status) == ("rate_limited", 429)
    assert len(session.exec(select(Appeal)).all()) == 2


@BOTH
def test_deciding_appeals_is_for_moderators_and_a_grant_keeps_the_safety_check(
    session: Session,
) -> None:
    moderator, author, test = _removed(session)
    make_evidence(session, test, state="quarantined")
    appeal = appeals.open_appeal(session, author, test.id, APPEAL, per_hour=3)
    session.commit()
    assert _refused(appeals.decide_appeal, session, author, appeal.id, "grant", GRANT).status == 403
    unsafe = _refused(appeals.decide_appeal, session, moderator, appeal.id, "grant", GRANT)
    assert unsafe.code == "unsafe_to_restore"
    session.rollback()
    assert session.get(Appeal, appeal.id).state == CaseState.OPEN  # type: ignore[union-attr]
    short = _refused(appeals.decide_appeal, session, moderator, appeal.id, "reject", "no")
    assert short.code == "reason_too_short"


@BOTH
def test_the_header_counts_open_appeals_for_staff_only(session: Session) -> None:
    _, author, test = _removed(session)
    reporter = make_user(session)
    make_report(session, make_test(session), reporter)
    appeals.open_appeal(session, author, test.id, APPEAL, per_hour=3)
    session.commit()

    moderator = make_user(session, role=Role.MODERATOR)
    assert nav_counts(session, moderator) == NavCounts(may_moderate=True, moderation=2)
    owner = make_user(session, role=Role.OWNER)
    assert nav_counts(session, owner) == NavCounts(True, True, moderation=2, operations=0)
    assert nav_counts(session, make_user(session)) == NavCounts()
    assert nav_counts(session, None) == NavCounts()
