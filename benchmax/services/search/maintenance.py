"""SQLite's full-text index kept in one segment, so looking a Test up in it stays cheap.

FTS5 writes each batch of changes as a new small segment and merges them level by level, so
a growing index settles with several segments (ten, at a million Tests). Looking one Test up
in the index seeks every segment, and a filtered search for a common word does that once per
row it walks (``search_sql.probed_page``): measured at a million Tests, such a page takes
1.4 ms with ten segments and 0.3 ms with one. ``merge_search_index`` runs periodically and
merges them with FTS5's incremental ``merge`` command (a negative page count starts an
incremental optimize, positive ones carry it on), a bounded number of pages per transaction,
so it never holds SQLite's one write lock for long. PostgreSQL's GIN index needs nothing of
the kind (autovacuum folds its pending list in), so there the job does nothing.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Connection, text

from benchmax.search_index import FTS_TABLE
from benchmax.services.jobs import JobContext

MERGE_INTERVAL = timedelta(minutes=10)
# Pages written per transaction, and transactions per run: a run stops after this much work
# and the next one carries on where it stopped.
MERGE_PAGES = 1000
MAX_STEPS = 50


def segment_count(connection: Connection) -> int:
    """How many segments the FTS index has (its ``_idx`` table holds a few rows per segment:
    thousands at a million Tests, so counting them is cheap)."""
    counted = text(f"SELECT count(DISTINCT segid) FROM {FTS_TABLE}_idx")  # noqa: S608 (constant)
    return int(connection.execute(counted).scalar_one())


def _merge(connection: Connection, pages: int) -> None:
    command = text(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rank) VALUES ('merge', :pages)")  # noqa: S608
    connection.execute(command, {"pages": pages})


def merge_search_index(ctx: JobContext) -> int:
    """Merge the SQLite FTS index towards one segment; return how many steps did work."""
    if ctx.engine.dialect.name != "sqlite":
        return 0
    for step in range(MAX_STEPS):
        with ctx.engine.begin() as connection:
            if segment_count(connection) <= 1:
                return step
            # A negative count starts an incremental optimize; positive ones carry it on.
            _merge(connection, -MERGE_PAGES if step == 0 else MERGE_PAGES)
    return MAX_STEPS
