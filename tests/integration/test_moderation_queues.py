"""The "Removed" moderation queue on both engines: what it lists, in which order, with which
reason, whether each Test can be restored, and who may see it."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from sqlmodel import Session

from benchmax.models import AccountStatus, EvidenceState, Role, Test, TestState, User
from benchmax.models._base import utcnow
from benchmax.services.errors import ServiceError
from benchmax.services.moderation import queues, takedowns
from benchmax.state.views.moderation import RemovedView
from tests.support.factories import make_evidence, make_test, make_user

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
REASON = "Contains a leaked personal address."


def _moderator(session: Session) -> User:
    return make_user(session, role=Role.MODERATOR)


def _removed_at(session: Session, test: Test, minutes_ago: int) -> None:
    """Pin when a Test was removed, so the order asserted does not depend on the clock."""
    test.removed_at = utcnow() - timedelta(minutes=minutes_ago)
    session.add(test)
    session.flush()


@BOTH
def test_removed_tests_are_listed_newest_first_with_their_latest_removal_reason(
    session: Session,
) -> None:
    moderator = _moderator(session)
    author = make_user(session, handle="ada")
    oldest = make_test(session, author, title="Oldest removal")
    newest = make_test(session, author, title="Newest removal")
    middle = make_test(session)
    still_public = make_test(session)
    # Removal order differs from removed_at order: the queue must sort by removed_at.
    takedowns.remove_test(session, moderator, newest.id, "Spam advert pasted as output.")
    takedowns.remove_test(session, moderator, oldest.id, "First reason, later restored.")
    takedowns.restore_test(session, moderator, oldest.id, "The report was mistaken, restored.")
    takedowns.remove_test(session, moderator, oldest.id, "Second reason after a new report.")
    takedowns.remove_test(session, moderator, middle.id, REASON)
    _removed_at(session, oldest, 30)
    _removed_at(session, middle, 20)
    _removed_at(session, newest, 10)
    session.commit()

    items = queues.removed_tests(session, 50)

    assert [item.test_id for item in items] == [newest.id, middle.id, oldest.id]
    assert still_public.id not in {item.test_id for item in items}
    by_id = {item.test_id: item for item in items}
    assert by_id[newest.id].reason == "Spam advert pasted as output."
    assert by_id[oldest.id].reason == "Second reason after a new report."
    assert by_id[middle.id].reason == REASON
    assert by_id[newest.id].test_title == "Newest removal"
    assert by_id[newest.id].contributor_handle == "ada"
    assert by_id[newest.id].removed_at == newest.removed_at.isoformat()  # type: ignore[union-attr]
    assert all(item.can_restore and item.restore_problem == "" for item in items)
    assert [item.test_id for item in queues.removed_tests(session, 2)] == [newest.id, middle.id]


@BOTH
def test_can_restore_agrees_with_what_restore_test_does(session: Session) -> None:
    moderator = _moderator(session)
    fine = make_test(session)
    quarantined = make_test(session)
    make_evidence(session, quarantined, state=EvidenceState.QUARANTINED)
    nothing_left = make_test(session, output_text="")
    sole_file = make_evidence(session, nothing_left)
    never_published = make_test(session, state=TestState.REMOVED, published_at=None)
    takedowns.remove_test(session, moderator, fine.id, REASON)
    takedowns.remove_test(session, moderator, quarantined.id, REASON)
    # Blocking the only file removes the Test with a decision of its own.
    takedowns.block_evidence(session, moderator, sole_file.id, "Malware inside the log file.")
    session.commit()

    items = {item.test_id: item for item in queues.removed_tests(session, 50)}

    assert set(items) == {fine.id, quarantined.id, nothing_left.id, never_published.id}
    assert items[nothing_left.id].reason == "Malware inside the log file."
    assert items[never_published.id].reason == ""  # removed without any recorded decision
    assert items[fine.id].can_restore
    blocked = [items[i] for i in (quarantined.id, nothing_left.id, never_published.id)]
    assert [item.can_restore for item in blocked] == [False, False, False]
    assert "did not pass safety" in items[quarantined.id].restore_problem
    assert "no output or approved file" in items[nothing_left.id].restore_problem
    assert "never published" in items[never_published.id].restore_problem
    for item in blocked:
        with pytest.raises(ServiceError) as refused:
            takedowns.restore_test(session, moderator, item.test_id, REASON)
        assert refused.value.status == 409
        assert item.restore_problem in refused.value.message


@BOTH
def test_a_restored_test_leaves_the_removed_queue(session: Session) -> None:
    moderator = _moderator(session)
    kept, restored = make_test(session), make_test(session)
    takedowns.remove_test(session, moderator, kept.id, REASON)
    takedowns.remove_test(session, moderator, restored.id, REASON)
    session.commit()
    before = queues.moderation_queues(session, moderator)
    assert {item.test_id for item in before.removed} == {kept.id, restored.id}

    takedowns.restore_test(session, moderator, restored.id, "The report was mistaken, restored.")
    session.commit()

    after = queues.moderation_queues(session, moderator)
    assert [item.test_id for item in after.removed] == [kept.id]
    body = json.loads(json.dumps(after.to_json()))
    assert [item["test_id"] for item in body["removed"]] == [kept.id]
    assert body["removed"][0]["reason"] == REASON
    assert body["removed"][0]["can_restore"] is True


@BOTH
def test_only_moderators_and_owners_see_the_removed_queue(session: Session) -> None:
    takedowns.remove_test(session, _moderator(session), make_test(session).id, REASON)
    session.commit()
    refused_actors = {
        "anonymous": (None, 401),
        "contributor": (make_user(session), 403),
        "reviewer": (make_user(session, role=Role.REVIEWER), 403),
        "suspended moderator": (
            make_user(session, role=Role.MODERATOR, status=AccountStatus.SUSPENDED),
            403,
        ),
    }
    for name, (actor, status) in refused_actors.items():
        with pytest.raises(ServiceError) as refused:
            queues.moderation_queues(session, actor)
        assert refused.value.status == status, name
    owner = make_user(session, role=Role.OWNER)
    assert len(queues.moderation_queues(session, owner).removed) == 1


def test_console_items_carry_the_restore_key_and_explanation() -> None:
    blocked = queues.RemovedItem(
        test_id="t1",
        test_title="A Test",
        contributor_handle="ada",
        removed_at="2025-01-02T03:04:00+00:00",
        reason=REASON,
        can_restore=False,
        restore_problem="one of its files did not pass safety processing",
    )
    row = RemovedView.of(blocked)
    assert row.key == "removed-t1"
    assert row.href == "/tests/t1"
    assert row.restorable is False
    assert row.problem == blocked.restore_problem
    assert row.removed.exact == "02 Jan 2025, 03:04 UTC"  # on hover; the page says how long ago
    assert row.removed.iso == "2025-01-02T03:04:00+00:00"
    assert RemovedView.of(queues.RemovedItem("t2", "B", "bo", "", "", True, "")).restorable
