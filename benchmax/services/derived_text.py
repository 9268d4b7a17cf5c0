"""The one gate for text BenchMax derives from untrusted bytes before it is written anywhere.

What a previewed page printed, threw, titled or requested, what the accessibility check
quoted from it, and everything an AI judge sends back are stored and shown, but nobody can
edit them. Every such value passes ``gate`` on its way to the database, to object storage or
to a log: credentials are replaced by a visible marker (``safety/redact.py``) and the number
removed is counted per source and UTC day in the same transaction, for /operations. The
removed text itself is never written: not here, not in a log line, not in a job error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from sqlalchemy import case, func
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session, col, select

from benchmax.models import RedactionDay
from benchmax.services.judge.budget import utc_day
from benchmax.services.safety.redact import Redacted, redact

V = TypeVar("V")

PREVIEW = "preview"
JUDGE = "judge"
SOURCES = (PREVIEW, JUDGE)


def gate(session: Session, source: str, value: V, *, clip: int | None = None) -> Redacted[V]:
    """``value`` with every credential replaced, the removals counted in ``session``."""
    cleaned = redact(value, clip=clip)
    record_redactions(session, source, cleaned.count)
    return cleaned


def record_redactions(session: Session, source: str, count: int) -> None:
    """Add ``count`` removals to today's row for ``source`` (one upsert; the caller commits)."""
    if count <= 0:
        return
    if source not in SOURCES:
        raise ValueError(f"unknown redaction source {source!r}")
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert(RedactionDay).values(day=utc_day(), source=source, count=count)
    session.execute(
        statement.on_conflict_do_update(
            index_elements=["day", "source"],
            set_={"count": col(RedactionDay.count) + count},
        )
    )


@dataclass(frozen=True)
class RedactionCounts:
    """Credentials removed from derived text: today and ever, per source."""

    today: dict[str, int]
    total: dict[str, int]

    @property
    def today_all(self) -> int:
        return sum(self.today.values())

    @property
    def total_all(self) -> int:
        return sum(self.total.values())


def redaction_counts(session: OrmSession) -> RedactionCounts:
    """One grouped read over a table of one row per source and day."""
    today = utc_day()
    rows = session.execute(
        select(
            col(RedactionDay.source),
            func.sum(col(RedactionDay.count)),
            func.sum(case((col(RedactionDay.day) == today, col(RedactionDay.count)), else_=0)),
        ).group_by(col(RedactionDay.source))
    ).all()
    return RedactionCounts(
        today=dict.fromkeys(SOURCES, 0) | {source: int(n or 0) for source, _, n in rows},
        total=dict.fromkeys(SOURCES, 0) | {source: int(n or 0) for source, n, _ in rows},
    )
