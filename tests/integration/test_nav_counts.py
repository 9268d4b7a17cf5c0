"""The header's staff counts on both engines: what counts as open, who sees which link, and
that each number costs one query."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, event
from sqlmodel import Session

from benchmax.models import (
    AccountStatus,
    CaseState,
    Job,
    JobState,
    ModerationHold,
    Role,
    User,
)
from benchmax.services.moderation.nav_counts import NavCounts, nav_counts
from tests.support.factories import make_dispute, make_report, make_review, make_test, make_user

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)


@pytest.fixture
def queries(engine: Engine) -> Iterator[list[str]]:
    seen: list[str] = []

    def record(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        seen.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    yield seen
    event.remove(engine, "before_cursor_execute", record)


def _hold(session: Session, test_id: str, state: CaseState = CaseState.OPEN) -> None:
    session.add(ModerationHold(test_id=test_id, reason_code="injection", state=state))
    session.flush()


def _job(session: Session, state: JobState) -> None:
    session.add(Job(kind="scan", subject_id="x", state=state))
    session.flush()


def _fill_queues(session: Session) -> None:
    """2 open reports, 1 open dispute, 1 Test held twice; closed cases and live jobs beside."""
    reporter = make_user(session)
    reviewer = make_user(session, role=Role.REVIEWER)
    test = make_test(session)
    make_report(session, test, reporter)
    make_report(session, test, reporter, details="A second report about the same Test.")
    make_report(session, test, reporter, state=CaseState.RESOLVED)
    make_dispute(session, make_review(session, test, reviewer))
    make_dispute(session, make_review(session, test, reviewer), state=CaseState.DISMISSED)
    held = make_test(session)
    _hold(session, held.id)
    _hold(session, held.id)  # two open holds on one Test are one item in the queue
    _hold(session, make_test(session).id, CaseState.RESOLVED)
    for state in (JobState.DEAD, JobState.DEAD, JobState.PENDING, JobState.DONE):
        _job(session, state)
    session.commit()


@BOTH
def test_moderators_see_open_reports_disputes_and_held_tests(
    session: Session, queries: list[str]
) -> None:
    _fill_queues(session)
    moderator = make_user(session, role=Role.MODERATOR)
    queries.clear()

    counts = nav_counts(session, moderator)

    assert counts == NavCounts(may_moderate=True, may_operate=False, moderation=4, operations=0)
    assert len(queries) == 4, queries  # one COUNT each: reports, disputes, appeals, held Tests


@BOTH
def test_owners_also_see_dead_jobs(session: Session, queries: list[str]) -> None:
    _fill_queues(session)
    owner = make_user(session, role=Role.OWNER)
    queries.clear()

    counts = nav_counts(session, owner)

    assert counts == NavCounts(may_moderate=True, may_operate=True, moderation=4, operations=2)
    assert len(queries) == 5, queries


@BOTH
@pytest.mark.parametrize(
    "who",
    ["stranger", "contributor", "reviewer", "suspended moderator", "suspended owner"],
)
def test_everyone_else_gets_no_links_and_no_queries(
    session: Session, queries: list[str], who: str
) -> None:
    _fill_queues(session)
    viewer: User | None = None
    if who != "stranger":
        role = {"contributor": Role.CONTRIBUTOR, "reviewer": Role.REVIEWER}.get(who)
        role = role or (Role.OWNER if who.endswith("owner") else Role.MODERATOR)
        status = AccountStatus.SUSPENDED if who.startswith("suspended") else AccountStatus.ACTIVE
        viewer = make_user(session, role=role, status=status)
    queries.clear()

    assert nav_counts(session, viewer) == NavCounts()
    assert queries == []


def test_empty_queues_still_show_the_links(session: Session) -> None:
    owner = make_user(session, role=Role.OWNER)
    assert nav_counts(session, owner) == NavCounts(may_moderate=True, may_operate=True)
