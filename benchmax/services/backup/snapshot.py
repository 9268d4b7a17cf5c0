"""Consistent database snapshots, and loading one into an empty database.

Three formats, chosen by engine and by what the machine has:

* ``sqlite`` — SQLite's online backup API: a page-consistent copy taken while the app runs.
* ``pg_dump`` — PostgreSQL's own dump (custom format), restored with ``pg_restore``.
* ``logical`` — every table's rows as gzipped JSON lines; the fallback where ``pg_dump`` is
  missing, loaded by re-creating the schema with Alembic and inserting the rows (INSERT only,
  which the append-only triggers allow).

On PostgreSQL the dump and the manifest's row fingerprints read one exported snapshot of a
REPEATABLE READ transaction, so they describe exactly the same moment. Connection passwords
go to ``pg_dump``/``pg_restore`` through the environment, never on the command line.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from sqlalchemy import Connection, DateTime, Engine, Table, create_engine, insert, inspect, text
from sqlalchemy.engine import make_url
from sqlmodel import SQLModel

from benchmax.db import normalise_url
from benchmax.migrations import upgrade
from benchmax.services.backup.manifest import (
    TableFingerprint,
    canonical_json,
    fingerprint_database,
    iter_rows,
    schema_revision,
)

SnapshotFormat = Literal["sqlite", "pg_dump", "logical"]
SNAPSHOT_FILES: dict[str, str] = {
    "sqlite": "database.sqlite3",
    "pg_dump": "database.pgdump",
    "logical": "database.jsonl.gz",
}
LOGICAL_FORMAT = "benchmax-logical/1"
_INSERT_BATCH = 1000


@dataclass(frozen=True)
class Snapshot:
    path: Path
    format: SnapshotFormat
    dialect: str
    revision: str
    tables: dict[str, TableFingerprint]


def choose_format(engine: Engine, requested: str = "auto") -> SnapshotFormat:
    dialect = engine.dialect.name
    if requested == "auto":
        if dialect == "sqlite":
            return "sqlite"
        return "pg_dump" if shutil.which("pg_dump") else "logical"
    if requested == "sqlite" and dialect != "sqlite":
        raise ValueError("the sqlite snapshot format needs a SQLite database")
    if requested == "pg_dump" and dialect != "postgresql":
        raise ValueError("the pg_dump snapshot format needs a PostgreSQL database")
    if requested not in SNAPSHOT_FILES:
        raise ValueError(f"unknown snapshot format {requested!r}")
    return requested  # type: ignore[return-value]  # narrowed by the membership test


def take_snapshot(engine: Engine, directory: Path, requested: str = "auto") -> Snapshot:
    """Write a snapshot into ``directory`` and fingerprint exactly what it holds."""
    fmt = choose_format(engine, requested)
    path = directory / SNAPSHOT_FILES[fmt]
    if engine.dialect.name == "sqlite":
        return _sqlite_snapshot(engine, path, fmt)
    return _postgres_snapshot(engine, path, fmt)


def _sqlite_snapshot(engine: Engine, path: Path, fmt: SnapshotFormat) -> Snapshot:
    copy = path.with_suffix(".copy") if fmt == "logical" else path
    source = sqlite3.connect(str(engine.url.database))
    target = sqlite3.connect(str(copy))
    try:
        source.backup(target)
        # A self-contained file: no -wal beside it to lose.
        target.execute("PRAGMA journal_mode=DELETE")
    finally:
        target.close()
        source.close()
    reader = create_engine(f"sqlite:///{copy}")
    try:
        with reader.connect() as conn:
            if fmt == "logical":
                write_logical(conn, path)
            snapshot = Snapshot(
                path, fmt, "sqlite", schema_revision(conn), fingerprint_database(conn)
            )
    finally:
        reader.dispose()
    if copy != path:
        copy.unlink()
    return snapshot


def _postgres_snapshot(engine: Engine, path: Path, fmt: SnapshotFormat) -> Snapshot:
    with engine.connect() as conn:
        conn = conn.execution_options(isolation_level="REPEATABLE READ")
        with conn.begin():
            exported = conn.execute(text("SELECT pg_export_snapshot()")).scalar_one()
            if fmt == "pg_dump":
                _run_pg_tool(
                    [
                        "pg_dump",
                        "--format=custom",
                        "--no-owner",
                        "--no-privileges",
                        f"--snapshot={exported}",
                        f"--file={path}",
                    ],
                    str(engine.url.render_as_string(hide_password=False)),
                )
            else:
                write_logical(conn, path)
            return Snapshot(
                path, fmt, "postgresql", schema_revision(conn), fingerprint_database(conn)
            )


def pg_environment(url: str) -> dict[str, str]:
    """libpq environment for ``url``: the password travels here, not in argv."""
    parsed = make_url(normalise_url(url))
    env = dict(os.environ)
    for name, value in (
        ("PGHOST", parsed.host),
        ("PGPORT", parsed.port),
        ("PGUSER", parsed.username),
        ("PGPASSWORD", parsed.password),
        ("PGDATABASE", parsed.database),
        ("PGSSLMODE", parsed.query.get("sslmode")),
    ):
        if value:
            env[name] = str(value)
    return env


def _run_pg_tool(command: list[str], url: str) -> None:
    result = subprocess.run(command, env=pg_environment(url), capture_output=True, check=False)
    if result.returncode != 0:
        # stderr names objects and options, never row content; keep it short.
        raise RuntimeError(f"{command[0]} failed: {result.stderr.decode(errors='replace')[-500:]}")


def _logical_tables(conn: Connection) -> list[Table]:
    present = set(inspect(conn).get_table_names())
    return [table for table in SQLModel.metadata.sorted_tables if table.name in present]


def write_logical(conn: Connection, path: Path) -> None:
    """Every table's rows, parents before children and each table in creation order."""
    with gzip.open(path, "wb") as out:
        header = {"format": LOGICAL_FORMAT, "revision": schema_revision(conn)}
        out.write(canonical_json(header) + b"\n")
        for table in _logical_tables(conn):
            order = "created_at" if "created_at" in table.c else None
            for row in iter_rows(conn, table, order_by=order):
                out.write(canonical_json({"table": table.name, "row": row}) + b"\n")


def database_is_empty(url: str) -> bool:
    """Whether the database at ``url`` has no tables (a missing SQLite file is empty)."""
    url = normalise_url(url)
    if url.startswith("sqlite"):
        path = Path(url.removeprefix("sqlite:///"))
        if not path.exists():
            return True
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            return int(conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]) == 0
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            count = conn.execute(
                text(
                    "SELECT count(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
                    "ON n.oid = c.relnamespace WHERE n.nspname = current_schema() "
                    "AND c.relkind IN ('r', 'p', 'v', 'S')"
                )
            ).scalar_one()
    finally:
        engine.dispose()
    return int(count) == 0


def load_snapshot(url: str, path: Path, fmt: str) -> None:
    """Load ``path`` into the empty database at ``url``."""
    url = normalise_url(url)
    if fmt == "sqlite":
        if not url.startswith("sqlite"):
            raise ValueError("a sqlite snapshot restores into a SQLite database")
        target = Path(url.removeprefix("sqlite:///"))
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = target.with_name(target.name + ".restoring")
        shutil.copyfile(path, staging)
        os.replace(staging, target)
    elif fmt == "pg_dump":
        database = make_url(url).database or ""
        _run_pg_tool(
            [
                "pg_restore",
                "--no-owner",
                "--no-privileges",
                "--exit-on-error",
                "--single-transaction",
                f"--dbname={database}",
                str(path),
            ],
            url,
        )
    elif fmt == "logical":
        _load_logical(url, path)
    else:
        raise ValueError(f"unknown snapshot format {fmt!r}")


def _load_logical(url: str, path: Path) -> None:
    with gzip.open(path, "rb") as source:
        header = json.loads(source.readline())
        if header.get("format") != LOGICAL_FORMAT:
            raise ValueError("not a BenchMax logical snapshot")
        upgrade(url, header["revision"] or "head")
        engine = create_engine(url)
        try:
            with engine.begin() as conn:
                batch: list[dict[str, Any]] = []
                current: str | None = None
                for line in source:
                    item = json.loads(line)
                    if item["table"] != current or len(batch) >= _INSERT_BATCH:
                        _flush(conn, current, batch)
                        batch, current = [], item["table"]
                    batch.append(item["row"])
                _flush(conn, current, batch)
                if conn.dialect.name == "postgresql":
                    _reset_sequences(conn)
        finally:
            engine.dispose()


def _flush(conn: Connection, name: str | None, rows: list[dict[str, Any]]) -> None:
    if not rows or name is None:
        return
    table = SQLModel.metadata.tables[name]
    stamps = [column.name for column in table.c if isinstance(column.type, DateTime)]
    for row in rows:
        for column in stamps:
            if isinstance(row.get(column), str):
                row[column] = datetime.fromisoformat(row[column])
    conn.execute(insert(table), rows)


def _reset_sequences(conn: Connection) -> None:
    """Rows were inserted with their ids; move each serial's next value past them."""
    for table in SQLModel.metadata.sorted_tables:
        primary = list(table.primary_key.columns)
        if len(primary) != 1 or primary[0].type.python_type is not int:
            continue
        column, quoted = primary[0].name, f'"{table.name}"'
        highest = f"(SELECT max({column}) FROM {quoted})"  # noqa: S608 - names from our metadata
        conn.execute(
            text(
                "SELECT setval(pg_get_serial_sequence(:table, :column), "
                f"coalesce({highest}, 1), {highest} IS NOT NULL)"
            ),
            {"table": quoted, "column": column},
        )
