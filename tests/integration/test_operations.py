"""The /operations data service: inventory and orphans, samples, dashboard, owner-only actions."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from benchmax.adapters.storage.local import LocalStorage
from benchmax.models import (
    AuditEvent,
    CaseState,
    Dispute,
    EvidenceState,
    Job,
    JobState,
    MetricSample,
    ModerationHold,
    Report,
    ReportReason,
    Review,
    ReviewerKind,
    Role,
)
from benchmax.models._base import utcnow
from benchmax.services.errors import Forbidden, Invalid
from benchmax.services.jobs import JobContext
from benchmax.services.operations import (
    CLI_ACTOR,
    dashboard,
    discard_job,
    owner_dashboard,
    record_sample,
    requeue_job,
    take_inventory,
    take_metrics_sample,
)
from benchmax.settings import Settings
from tests.support.factories import make_evidence, make_stored_evidence, make_test, make_user
from tests.support.jobs_fixtures import RecordedJobQueue

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)


@pytest.fixture
def storage(tmp_path: Path) -> LocalStorage:
    return LocalStorage(tmp_path / "objects")


def _dead_job(session: Session, kind: str = "safety_scan", subject: str = "ev1") -> Job:
    job = Job(
        kind=kind, subject_id=subject, state=JobState.DEAD, attempts=5, last_error_code="Boom"
    )
    session.add(job)
    session.flush()
    return job


def test_inventory_counts_prefixes_and_finds_orphans_both_ways(
    session: Session, storage: LocalStorage
) -> None:
    test = make_test(session)
    kept = make_stored_evidence(session, storage, test, b"kept bytes")
    lost = make_stored_evidence(session, storage, test, b"lost bytes")
    storage.delete(lost.storage_key)  # an approved row whose object is gone
    quarantined = make_evidence(
        session, test, state=EvidenceState.QUARANTINED, quarantine_key=f"quarantine/{test.id}/q1"
    )
    storage.put(quarantined.quarantine_key, [b"waiting for scan"])
    storage.put("evidence/nobody/stray", [b"stray!"])  # objects no row names
    storage.put("quarantine/nobody/stray", [b"stray"])
    storage.put("private/backups/x/manifest.json", [b"{}"])  # private: never an orphan
    blocked = make_evidence(session, test, state=EvidenceState.BLOCKED, storage_key="evidence/b")
    session.commit()

    inventory = take_inventory(session, storage)

    usage = {u.prefix: (u.objects, u.bytes) for u in inventory.prefixes}
    assert usage == {
        "quarantine/": (2, len(b"waiting for scan") + len(b"stray")),
        "evidence/": (2, len(b"kept bytes") + len(b"stray!")),
        "private/": (1, 2),
    }
    assert inventory.orphan_objects == ("quarantine/nobody/stray", "evidence/nobody/stray")
    assert inventory.orphan_object_count == 2
    # Only approved rows must have bytes: the blocked row without an object is fine.
    assert inventory.missing_objects == (lost.storage_key,)
    assert inventory.missing_object_count == 1
    assert kept.storage_key not in inventory.orphan_objects
    assert blocked.storage_key not in inventory.missing_objects


@BOTH
def test_sample_records_queues_time_to_public_and_inventory(
    session: Session, storage: LocalStorage
) -> None:
    now = utcnow()
    for seconds in (10, 20, 30, 40, 100):
        make_test(
            session,
            submitted_at=now - timedelta(minutes=5, seconds=seconds),
            published_at=now - timedelta(minutes=5),
        )
    make_test(session, submitted_at=now - timedelta(days=3), published_at=now - timedelta(days=2))
    _dead_job(session)
    session.add(Job(kind="publish", subject_id="t1", state=JobState.DONE))
    old = MetricSample(taken_at=now - timedelta(days=8))
    session.add(old)
    session.commit()

    sample = record_sample(session, storage, now)
    session.commit()

    assert sample.published_24h == 5
    assert sample.ttp_p50_seconds == pytest.approx(30.0)
    assert sample.ttp_p95_seconds == pytest.approx(88.0)  # 40 + 0.8 * (100 - 40)
    assert sample.queue == {"publish": {"done": 1}, "safety_scan": {"dead": 1}}
    assert sample.storage["orphan_object_count"] == 0
    ids = session.exec(select(col(MetricSample.id))).all()
    assert ids == [sample.id]  # the 8-day-old sample was pruned


@BOTH
def test_dashboard_shows_everything_an_owner_needs(
    session: Session, storage: LocalStorage, engine: Engine, settings: Settings
) -> None:
    owner = make_user(session, role=Role.OWNER)
    test = make_test(session)
    review = Review(
        test_id=test.id, reviewer_kind=ReviewerKind.AI, score=50, reasoning="Meets the prompt."
    )
    session.add(review)
    session.flush()
    session.add(Report(reporter_id=owner.id, test_id=test.id, reason=ReportReason.SPAM))
    session.add(
        Report(
            reporter_id=owner.id,
            test_id=test.id,
            reason=ReportReason.OTHER,
            state=CaseState.RESOLVED,
        )
    )
    session.add(
        Dispute(
            review_id=review.id,
            test_id=test.id,
            contributor_id=test.contributor_id,
            reason="The score ignores the second file.",
        )
    )
    session.add(ModerationHold(test_id=test.id, reason_code="injection"))
    dead = _dead_job(session)
    session.add(
        Job(
            kind="safety_scan",
            subject_id="ev2",
            state=JobState.PENDING,
            next_attempt_at=utcnow() - timedelta(minutes=3),
        )
    )
    session.add(Job(kind="safety_scan", subject_id="ev3", state=JobState.DONE))
    session.add(
        AuditEvent(
            actor_id=owner.id,
            action="role.granted",
            subject_type="user",
            subject_id=owner.id,
            detail={"note": "secret words"},
        )
    )
    session.commit()
    storage.put("evidence/nobody/stray", [b"x"])

    first = dashboard(session, storage)
    # No sample yet: finished jobs are not counted and the inventory is taken live.
    assert first.finished_counts_at is None
    assert first.inventory.orphan_objects == ("evidence/nobody/stray",)

    ctx = JobContext.from_settings(
        settings.model_copy(update={"storage_local_root": storage.root}), engine=engine
    )
    take_metrics_sample(ctx)
    storage.put("evidence/nobody/later", [b"y"])  # after the sample: not on the page yet
    data = dashboard(session, storage)

    counts = {(c.kind, c.state.value): c.count for c in data.job_counts}
    assert counts == {
        ("safety_scan", "dead"): 1,
        ("safety_scan", "pending"): 1,
        ("safety_scan", "done"): 1,
    }
    assert data.finished_counts_at is not None
    assert data.oldest_waiting_seconds is not None
    assert 170 < data.oldest_waiting_seconds < 600
    [dead_row] = data.dead_jobs
    assert (
        dead_row.id,
        dead_row.kind,
        dead_row.subject_id,
        dead_row.attempts,
        dead_row.last_error_code,
    ) == (dead.id, "safety_scan", "ev1", 5, "Boom")
    assert (data.open_reports, data.open_disputes, data.open_holds) == (1, 1, 1)
    assert data.ai_review == "off: no active judge snapshot"
    assert data.inventory.orphan_objects == ("evidence/nobody/stray",)
    assert len(data.ttp_series) == 1
    assert data.time_to_public.published == 1
    assert data.last_backup is None
    [event] = data.recent_audit
    assert (event.action, event.actor_id) == ("role.granted", owner.id)
    assert "secret words" not in repr(data)


@pytest.mark.parametrize("role", [Role.CONTRIBUTOR, Role.MODERATOR, Role.REVIEWER])
def test_only_owners_get_the_dashboard_or_act(
    session: Session, storage: LocalStorage, role: Role
) -> None:
    viewer = make_user(session, role=role)
    dead = _dead_job(session)
    session.commit()
    with pytest.raises(Forbidden):
        owner_dashboard(session, storage, viewer)
    with pytest.raises(Forbidden):
        owner_dashboard(session, storage, None)
    with pytest.raises(Forbidden):
        requeue_job(session, dead.id or 0, actor=viewer, reason="I would like to retry it")
    with pytest.raises(Forbidden):
        discard_job(session, dead.id or 0, actor=viewer, reason="I would like to drop it")
    session.rollback()
    assert session.get(Job, dead.id).state == JobState.DEAD  # type: ignore[union-attr]
    assert session.exec(select(AuditEvent)).all() == []


def test_a_suspended_owner_is_refused(session: Session, storage: LocalStorage) -> None:
    owner = make_user(session, role=Role.OWNER, status="suspended")
    with pytest.raises(Forbidden):
        owner_dashboard(session, storage, owner)


def test_owner_requeues_and_discards_with_a_reason(
    job_ctx: JobContext, storage: LocalStorage, job_queue: RecordedJobQueue
) -> None:
    # Opened by the context, so the requeued job is sent after the commit.
    with job_ctx.session() as session:
        owner = make_user(session, role=Role.OWNER)
        first, second = _dead_job(session), _dead_job(session, subject="ev2")
        session.commit()
        assert owner_dashboard(session, storage, owner).dead_jobs[0].id == second.id

        with pytest.raises(Invalid):
            requeue_job(session, first.id or 0, actor=owner, reason="  short  ")
        requeue_job(session, first.id or 0, actor=owner, reason="Scanner fixed in 1.2")
        discard_job(session, second.id or 0, actor=None, reason="Evidence was deleted anyway")
        session.commit()

        assert job_queue.wait_for(1) == [first.id]
        events = session.exec(select(AuditEvent).order_by(col(AuditEvent.id))).all()
        assert [(e.action, e.actor_id, e.detail["reason"]) for e in events] == [
            ("job.requeue", owner.id, "Scanner fixed in 1.2"),
            ("job.discard", CLI_ACTOR, "Evidence was deleted anyway"),
        ]
        assert dashboard(session, storage).dead_jobs == ()
