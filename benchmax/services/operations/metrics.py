"""Metric samples: what the scheduler records every tick for the /operations charts.

A sample freezes the queue depths, time-to-public over the last 24 hours and the storage
inventory at one moment. The page reads samples; it never lists storage or recomputes history
on load. Samples older than ``SAMPLE_RETENTION`` are pruned as new ones are written.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete
from sqlalchemy.orm import Session
from sqlmodel import col, select

from benchmax.adapters.storage import ObjectStorage
from benchmax.models import MetricSample, Test, TestState
from benchmax.models._base import as_utc, utcnow
from benchmax.services.jobs import JobContext, job_counts, oldest_waiting_age
from benchmax.services.operations.inventory import take_inventory

TTP_WINDOW = timedelta(hours=24)
SAMPLE_RETENTION = timedelta(days=7)


@dataclass(frozen=True)
class TimeToPublic:
    """Seconds from submit to public for Tests published in the window; None when none were."""

    p50_seconds: float | None
    p95_seconds: float | None
    published: int


@dataclass(frozen=True)
class JobStatePoint:
    """Jobs in each state at one sample, summed over kinds, and the oldest wait then."""

    taken_at: datetime
    counts: dict[str, int]
    oldest_waiting_seconds: float | None

    @property
    def backlog(self) -> int:
        """Jobs not yet finished: waiting to run or running."""
        return self.counts.get("pending", 0) + self.counts.get("running", 0)


@dataclass(frozen=True)
class SeriesPoint:
    taken_at: datetime
    p50_seconds: float | None
    p95_seconds: float | None


def percentile(sorted_values: list[float], fraction: float) -> float:
    """Linear interpolation between closest ranks (numpy's default), on sorted input."""
    if not sorted_values:
        raise ValueError("percentile of no values")
    position = (len(sorted_values) - 1) * fraction
    lower = math.floor(position)
    upper = min(lower + 1, len(sorted_values) - 1)
    weight = position - lower
    return sorted_values[lower] * (1 - weight) + sorted_values[upper] * weight


def time_to_public(session: Session, now: datetime | None = None) -> TimeToPublic:
    """p50/p95 of submitted → published over the last 24 hours (a range scan of ix_test_feed)."""
    now = now or utcnow()
    rows = session.execute(
        select(col(Test.submitted_at), col(Test.published_at)).where(
            col(Test.state) == TestState.PUBLIC,
            col(Test.published_at) >= now - TTP_WINDOW,
            col(Test.published_at) <= now,
            col(Test.submitted_at).is_not(None),
        )
    )
    durations = sorted(
        max(0.0, (as_utc(published) - as_utc(submitted)).total_seconds())
        for submitted, published in rows
        if submitted is not None and published is not None
    )
    if not durations:
        return TimeToPublic(None, None, 0)
    return TimeToPublic(percentile(durations, 0.5), percentile(durations, 0.95), len(durations))


def queue_depths(session: Session) -> dict[str, dict[str, int]]:
    """``{kind: {state: count}}`` for every job kind."""
    depths: dict[str, dict[str, int]] = {}
    for count in job_counts(session):
        depths.setdefault(count.kind, {})[count.state.value] = count.count
    return depths


def record_sample(
    session: Session, storage: ObjectStorage, now: datetime | None = None
) -> MetricSample:
    """Take and store one sample, and prune those past retention; the caller commits."""
    now = now or utcnow()
    ttp = time_to_public(session, now)
    waiting = oldest_waiting_age(session, now)
    sample = MetricSample(
        taken_at=now,
        ttp_p50_seconds=ttp.p50_seconds,
        ttp_p95_seconds=ttp.p95_seconds,
        published_24h=ttp.published,
        oldest_waiting_seconds=waiting.total_seconds() if waiting is not None else None,
        queue=queue_depths(session),
        storage=take_inventory(session, storage, now).to_json(),
    )
    session.add(sample)
    session.execute(delete(MetricSample).where(col(MetricSample.taken_at) < now - SAMPLE_RETENTION))
    session.flush()
    return sample


def take_metrics_sample(ctx: JobContext) -> int:
    """The scheduler's tick: record one sample in its own transaction; returns its id."""
    with ctx.session() as session:
        sample = record_sample(session, ctx.storage)
        return sample.id or 0


def latest_sample(session: Session) -> MetricSample | None:
    return session.scalars(
        select(MetricSample).order_by(col(MetricSample.taken_at).desc()).limit(1)
    ).first()


def ttp_series(session: Session, now: datetime | None = None) -> list[SeriesPoint]:
    """The recorded time-to-public samples of the last 24 hours, oldest first."""
    rows = _recent(session, now, MetricSample.ttp_p50_seconds, MetricSample.ttp_p95_seconds)
    return [SeriesPoint(as_utc(taken), p50, p95) for taken, p50, p95 in rows]


def _recent(session: Session, now: datetime | None, *columns: Any) -> Any:
    """``taken_at`` and ``columns`` of the samples of the last 24 hours, oldest first."""
    since = (now or utcnow()) - TTP_WINDOW
    return session.execute(
        select(col(MetricSample.taken_at), *(col(c) for c in columns))
        .where(col(MetricSample.taken_at) >= since)
        .order_by(col(MetricSample.taken_at))
    )


def job_state_series(session: Session, now: datetime | None = None) -> list[JobStatePoint]:
    """Job counts by state at each recorded sample of the last 24 hours, oldest first."""
    rows = _recent(session, now, MetricSample.queue, MetricSample.oldest_waiting_seconds)
    points = []
    for taken, queue, waiting in rows:
        counts: dict[str, int] = {}
        for states in (queue or {}).values():
            for state, count in (states or {}).items():
                counts[state] = counts.get(state, 0) + int(count)
        points.append(JobStatePoint(as_utc(taken), counts, waiting))
    return points
