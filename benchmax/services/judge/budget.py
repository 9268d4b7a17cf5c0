"""The daily sample budget: reserved before a request is sent, settled after it returns.

``reserve`` is one conditional UPDATE per ledger — ``reserved + used + n <= limit`` in its
WHERE clause — so any number of workers on PostgreSQL (row locks, re-checked after a wait)
or SQLite (one writer at a time) can never send more than the day allows. The contributor's
ledger is reserved in the same transaction, after the global one (a fixed order, so two
reservations cannot deadlock); if it refuses, the transaction is rolled back and the global
reservation with it. ``settle`` moves the reservation to ``used`` with what the endpoint
actually reported. A worker killed between the two leaves its reservation counted for that
day: the budget errs on the side of spending less. Days are UTC dates.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import ColumnElement, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col

from benchmax.models import JudgeBudgetDay, JudgeContributorDay
from benchmax.models._base import utcnow
from benchmax.services.jobs.runner import affected_rows


def utc_day(moment: datetime | None = None) -> str:
    return (moment or utcnow()).astimezone(UTC).date().isoformat()


def seconds_to_next_day(moment: datetime | None = None) -> float:
    now = (moment or utcnow()).astimezone(UTC)
    tomorrow = datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), UTC)
    return (tomorrow - now).total_seconds()


@dataclass(frozen=True)
class Reservation:
    day: str
    samples: int
    contributor_id: str | None


def _ensure_rows(session: Session, day: str, contributor_id: str | None) -> None:
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    session.execute(insert(JudgeBudgetDay).values(day=day).on_conflict_do_nothing())
    if contributor_id is not None:
        session.execute(
            insert(JudgeContributorDay)
            .values(day=day, contributor_id=contributor_id)
            .on_conflict_do_nothing()
        )


_DayTable = type[JudgeBudgetDay] | type[JudgeContributorDay]


@dataclass(frozen=True)
class _DayRow:
    table: _DayTable
    where: tuple[ColumnElement[bool], ...]


def _day_row(table: _DayTable, day: str, contributor_id: str | None = None) -> _DayRow:
    where = [col(table.day) == day]
    if contributor_id is not None:
        where.append(col(JudgeContributorDay.contributor_id) == contributor_id)
    return _DayRow(table, tuple(where))


def _reserve_within(session: Session, row: _DayRow, samples: int, limit: int) -> bool:
    """Add ``samples`` to the row's reserved count in one statement, unless that passes ``limit``.

    The check and the increment are one UPDATE, so two workers cannot both take the last sample.
    """
    table = row.table
    reserved, used = col(table.reserved), col(table.used)
    statement = (
        update(table)
        .where(*row.where, reserved + used + samples <= limit)
        .values(reserved=reserved + samples)
        .execution_options(synchronize_session=False)
    )
    return bool(affected_rows(session.execute(statement)))


def _settle_row(session: Session, row: _DayRow, released: int, used: int, **more: int) -> None:
    """Move ``released`` reserved samples out and ``used`` in; ``more`` adds to other counts."""
    table = row.table
    values = {"reserved": col(table.reserved) - released, "used": col(table.used) + used}
    values |= {name: col(getattr(table, name)) + count for name, count in more.items()}
    statement = (
        update(table).where(*row.where).values(values).execution_options(synchronize_session=False)
    )
    session.execute(statement)


def reserve(
    session: Session,
    samples: int,
    *,
    daily_limit: int,
    contributor_id: str | None = None,
    contributor_limit: int | None = None,
) -> Reservation | None:
    """Reserve ``samples`` for today, or None when the day (or the contributor) is spent.

    Commits on success and rolls back on refusal: a reservation must be visible to every
    other worker before anything is sent.
    """
    day = utc_day()
    _ensure_rows(session, day, contributor_id)
    session.commit()
    granted = _reserve_within(session, _day_row(JudgeBudgetDay, day), samples, daily_limit)
    if granted and contributor_id is not None and contributor_limit is not None:
        row = _day_row(JudgeContributorDay, day, contributor_id)
        granted = _reserve_within(session, row, samples, contributor_limit)
    if not granted:
        session.rollback()
        return None
    session.commit()
    return Reservation(day, samples, contributor_id)


def settle(
    session: Session,
    reservation: Reservation,
    used: int,
    *,
    prompt_tokens: int = 0,
    completion_tokens: int = 0,
    metered: int = 0,
) -> None:
    """Release ``reservation`` and count ``used`` samples (and their tokens); caller commits."""
    day = reservation.day
    _settle_row(
        session,
        _day_row(JudgeBudgetDay, day),
        reservation.samples,
        used,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        metered_samples=metered,
    )
    if reservation.contributor_id is not None:
        row = _day_row(JudgeContributorDay, day, reservation.contributor_id)
        _settle_row(session, row, reservation.samples, used)
