"""The judge as /operations and ``benchmax judge list`` show it: state, budget, cost, backlog
and snapshots; /operations also shows each snapshot's agreement with people, which the list
command does not print and so does not compute."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func
from sqlmodel import Session, col, select

from benchmax.models import (
    Job,
    JobState,
    JudgeBudgetDay,
    JudgeCalibrationRun,
    JudgeSnapshot,
    JudgeState,
)
from benchmax.models._base import as_utc, utcnow
from benchmax.services.judge.agreement import Agreement, judge_agreement
from benchmax.services.judge.budget import utc_day
from benchmax.services.judge.review import JUDGE_REVIEW
from benchmax.services.judge.snapshots import active_snapshot, list_snapshots
from benchmax.settings import Settings


@dataclass(frozen=True)
class SnapshotRow:
    id: str
    name: str
    state: str
    models: str
    calibration: str
    can_activate: bool


@dataclass(frozen=True)
class JudgeStatus:
    state: str
    """"off" (no endpoint), "on, no active snapshot", or the active snapshot's name and id."""
    budget: int
    used_today: int
    reserved_today: int
    mean_tokens_per_sample: float | None
    waiting_for_budget: int
    pending: int
    dead: int
    snapshots: list[SnapshotRow]
    # Each snapshot's reviews' agreement with people's on the same Tests (overall figures).
    agreements: dict[str, Agreement]


def _calibration_text(run: JudgeCalibrationRun | None) -> str:
    if run is None:
        return "not calibrated"
    verdict = "passed" if run.passed else "failed"
    return f"{verdict} {as_utc(run.created_at):%Y-%m-%d %H:%M}"


def snapshot_rows(session: Session) -> list[SnapshotRow]:
    snapshots = list_snapshots(session)
    runs = {
        run.id: run
        for run in session.exec(
            select(JudgeCalibrationRun).where(
                col(JudgeCalibrationRun.id).in_([s.last_calibration_id for s in snapshots])
            )
        ).all()
    }
    rows = []
    for snapshot in snapshots:
        run = runs.get(snapshot.last_calibration_id or "")
        rows.append(
            SnapshotRow(
                id=snapshot.id,
                name=snapshot.name,
                state=str(snapshot.state),
                models=", ".join(snapshot.model_ids),
                calibration=_calibration_text(run),
                can_activate=bool(run and run.passed) and snapshot.state != JudgeState.ACTIVE,
            )
        )
    return rows


def judge_status(session: Session, settings: Settings) -> JudgeStatus:
    active: JudgeSnapshot | None = active_snapshot(session)
    if not settings.judge_enabled:
        state = "off"
    elif active is None:
        state = "on, no active snapshot"
    else:
        state = f"active: {active.name} ({active.id})"
    day = session.get(JudgeBudgetDay, utc_day())
    totals = session.exec(
        select(
            func.sum(JudgeBudgetDay.prompt_tokens + JudgeBudgetDay.completion_tokens),
            func.sum(JudgeBudgetDay.metered_samples),
        )
    ).one()
    tokens, metered = totals
    counts = dict(
        session.exec(
            select(Job.state, func.count())
            .where(Job.kind == JUDGE_REVIEW, col(Job.state).in_([JobState.PENDING, JobState.DEAD]))
            .group_by(col(Job.state))
        ).all()
    )
    rows = snapshot_rows(session)
    waiting = session.exec(
        select(func.count()).where(
            Job.kind == JUDGE_REVIEW,
            Job.state == JobState.PENDING,
            col(Job.next_attempt_at) > utcnow(),
            Job.attempts == 0,
        )
    ).one()
    return JudgeStatus(
        state=state,
        budget=settings.judge_daily_sample_budget,
        used_today=day.used if day else 0,
        reserved_today=day.reserved if day else 0,
        mean_tokens_per_sample=(tokens / metered) if metered else None,
        waiting_for_budget=int(waiting),
        pending=int(counts.get(JobState.PENDING, 0)),
        dead=int(counts.get(JobState.DEAD, 0)),
        snapshots=rows,
        agreements={row.id: judge_agreement(session, row.id, panel=False).overall for row in rows},
    )
