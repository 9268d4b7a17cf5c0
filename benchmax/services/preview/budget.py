"""Counters per UTC day: evaluations started, and retries each contributor asked for.

Each is one conditional UPDATE (``used + 1 <= limit``), so concurrent workers or requests can
never go past the limit on either engine.
"""

from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col

from benchmax.models import PreviewBudgetDay, PreviewRetryDay
from benchmax.services.jobs.runner import affected_rows
from benchmax.services.judge.budget import utc_day


def _insert(session: Session):  # type: ignore[no-untyped-def]
    dialect = session.get_bind().dialect.name
    return postgresql.insert if dialect == "postgresql" else sqlite.insert


def take_evaluation(session: Session, daily_limit: int) -> bool:
    """Count one evaluation for today; False (nothing counted) when the day is spent."""
    day = utc_day()
    session.execute(_insert(session)(PreviewBudgetDay).values(day=day).on_conflict_do_nothing())
    return bool(
        affected_rows(
            session.execute(
                update(PreviewBudgetDay)
                .where(col(PreviewBudgetDay.day) == day, col(PreviewBudgetDay.used) < daily_limit)
                .values(used=col(PreviewBudgetDay.used) + 1)
                .execution_options(synchronize_session=False)
            )
        )
    )


def take_retry(session: Session, contributor_id: str, daily_limit: int) -> bool:
    """Count one retry for ``contributor_id`` today; False when they have used the day's."""
    day = utc_day()
    session.execute(
        _insert(session)(PreviewRetryDay)
        .values(day=day, contributor_id=contributor_id)
        .on_conflict_do_nothing()
    )
    return bool(
        affected_rows(
            session.execute(
                update(PreviewRetryDay)
                .where(
                    col(PreviewRetryDay.day) == day,
                    col(PreviewRetryDay.contributor_id) == contributor_id,
                    col(PreviewRetryDay.used) < daily_limit,
                )
                .values(used=col(PreviewRetryDay.used) + 1)
                .execution_options(synchronize_session=False)
            )
        )
    )
