"""Where a canary key must not be: every row of every table, every stored object.

Reading the database file itself (SQLite, with its journal) also finds a value written and
later overwritten; PostgreSQL is read row by row as JSON.
"""

from __future__ import annotations

from pathlib import Path

import psycopg
from sqlalchemy import Engine

from benchmax.adapters.storage import ObjectStorage
from benchmax.adapters.storage.local import LocalStorage


def every_row(engine: Engine, database_url: str) -> bytes:
    """The SQLite file's bytes (with its journal), or every row of every PostgreSQL table."""
    engine.dispose()
    if database_url.startswith("sqlite"):
        path = Path(database_url.removeprefix("sqlite:///"))
        siblings = [path, *(path.with_name(path.name + suffix) for suffix in ("-wal", "-journal"))]
        return b"".join(p.read_bytes() for p in siblings if p.exists())
    dump: list[str] = []
    with psycopg.connect(database_url) as conn:
        tables = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        for (table,) in tables.fetchall():
            rows = conn.execute(f'SELECT row_to_json(t)::text FROM "{table}" t')
            dump.extend(row[0] for row in rows.fetchall())
    return "\n".join(dump).encode()


def every_object(storage: ObjectStorage) -> bytes:
    """Every object's key and bytes; for local storage, every file under its root as well
    (partial uploads included)."""
    chunks = [info.key.encode() + b"".join(storage.get(info.key)) for info in storage.list()]
    if isinstance(storage, LocalStorage):
        chunks.extend(p.read_bytes() for p in storage.root.rglob("*") if p.is_file())
    return b"\n".join(chunks)
