"""Counters per UTC day: evaluations started (in all, and per contributor), and retries each
contributor asked for.

An evaluation counts against both the instance's day and its contributor's share of it, so
one account submitting ZIPs all day spends its own share and leaves the rest for everyone
else.

Each is one conditional UPDATE (``used + 1 <= limit``), so concurrent workers or requests can
never go past the limit on either engine.
"""

from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col

from benchmax.models import PreviewAccountDay, PreviewBudgetDay, PreviewRetryDay
from benchmax.services.jobs.runner import affected_rows
from benchmax.services.judge.budget import utc_day


def _insert(session: Session):  # type: ignore[no-untyped-def]
    dialect = session.get_bind().dialect.name
    return postgresql.insert if dialect == "postgresql" else sqlite.insert


def take_evaluation(
    session: Session, daily_limit: int, contributor_id: str, contributor_limit: int
) -> bool:
    """Count one evaluation for today, for the instance and for ``contributor_id``; False
    when either is spent (the caller rolls back whatever was counted)."""
    return _take_contributor(
        session, PreviewAccountDay, contributor_id, contributor_limit
    ) and _take_day(session, daily_limit)


def _take_day(session: Session, daily_limit: int) -> bool:
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
    return _take_contributor(session, PreviewRetryDay, contributor_id, daily_limit)


def _take_contributor(
    session: Session,
    table: type[PreviewRetryDay] | type[PreviewAccountDay],
    contributor_id: str,
    daily_limit: int,
) -> bool:
    day = utc_day()
    session.execute(
        _insert(session)(table)
        .values(day=day, contributor_id=contributor_id)
        .on_conflict_do_nothing()
    )
    return bool(
        affected_rows(
            session.execute(
                update(table)
                .where(
                    col(table.day) == day,
                    col(table.contributor_id) == contributor_id,
                    col(table.used) < daily_limit,
                )
                .values(used=col(table.used) + 1)
                .execution_options(synchronize_session=False)
            )
        )
    )
