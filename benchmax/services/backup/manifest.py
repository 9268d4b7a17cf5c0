"""The backup manifest: what a backup must contain, written so anyone can check it later.

A manifest pins, for one moment in time, the schema revision, every table's row count and a
SHA-256 over its rows, the database snapshot's SHA-256, and every stored object's key, size
and SHA-256. It is canonical JSON (sorted keys, no insignificant whitespace, UTF-8), so the
same content always has the same bytes and the manifest's own SHA-256 — stored beside it —
proves it was not edited.

Row fingerprints are independent of engine and row order: each row is serialised as canonical
JSON with timestamps in UTC ISO form, hashed, and the sorted row hashes are hashed again. A
restored copy of the same rows therefore has the same fingerprint on SQLite and PostgreSQL.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, Table, inspect, select, text
from sqlmodel import SQLModel

import benchmax.models  # noqa: F401 - every table on the metadata
from benchmax.adapters.storage import PRIVATE_PREFIX, ObjectStorage
from benchmax.models._base import as_utc
from benchmax.services.dates import JsonReady

MANIFEST_FORMAT = "benchmax-backup/1"
BACKUP_PREFIX = f"{PRIVATE_PREFIX}backups/"
MANIFEST_NAME = "manifest.json"
MANIFEST_HASH_NAME = "manifest.sha256"
# Rows that change while nothing happens (samples, backups, worker heartbeats): in the
# snapshot, never pinned by the manifest.
VOLATILE_TABLES = frozenset({"metric_sample", "backup_record", "worker_beat"})
# The revision is recorded on its own; the table is Alembic's.
UNPINNED_TABLES = VOLATILE_TABLES | {"alembic_version"}


def canonical_json(value: Any) -> bytes:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_encode
    ).encode("utf-8")


def _encode(value: Any) -> Any:
    if isinstance(value, datetime):
        return as_utc(value).isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, bytes):
        return value.hex()
    raise TypeError(f"cannot encode {type(value).__name__}")


def sha256_chunks(chunks: Iterable[bytes]) -> tuple[str, int]:
    """SHA-256 hex digest and size of a byte stream."""
    digest = hashlib.sha256()
    size = 0
    for chunk in chunks:
        digest.update(chunk)
        size += len(chunk)
    return digest.hexdigest(), size


@dataclass(frozen=True)
class TableFingerprint(JsonReady):
    rows: int
    sha256: str


@dataclass(frozen=True)
class ObjectEntry(JsonReady):
    key: str
    size: int
    sha256: str


@dataclass(frozen=True)
class Manifest:
    created_at: str
    schema_revision: str
    dialect: str
    snapshot_key: str
    snapshot_format: str
    snapshot_sha256: str
    snapshot_bytes: int
    tables: dict[str, TableFingerprint]
    objects: tuple[ObjectEntry, ...]
    # The local sign-in key stored beside the snapshot (keys.py); "" when there is none.
    signing_key_sha256: str = ""

    def to_json(self) -> dict[str, Any]:
        signing_key = (
            {"signing_key_sha256": self.signing_key_sha256} if self.signing_key_sha256 else {}
        )
        return {
            **signing_key,
            "format": MANIFEST_FORMAT,
            "created_at": self.created_at,
            "schema_revision": self.schema_revision,
            "database": {
                "dialect": self.dialect,
                "snapshot_key": self.snapshot_key,
                "snapshot_format": self.snapshot_format,
                "snapshot_sha256": self.snapshot_sha256,
                "snapshot_bytes": self.snapshot_bytes,
            },
            "tables": {name: fp.to_json() for name, fp in self.tables.items()},
            "volatile_tables": sorted(VOLATILE_TABLES),
            "objects": [entry.to_json() for entry in self.objects],
        }

    def encode(self) -> bytes:
        return canonical_json(self.to_json())

    @classmethod
    def decode(cls, data: bytes) -> Manifest:
        raw = json.loads(data)
        if raw.get("format") != MANIFEST_FORMAT:
            raise ValueError("not a BenchMax backup manifest")
        database = raw["database"]
        return cls(
            created_at=raw["created_at"],
            schema_revision=raw["schema_revision"],
            dialect=database["dialect"],
            snapshot_key=database["snapshot_key"],
            snapshot_format=database["snapshot_format"],
            snapshot_sha256=database["snapshot_sha256"],
            snapshot_bytes=int(database["snapshot_bytes"]),
            tables={
                name: TableFingerprint(int(fp["rows"]), fp["sha256"])
                for name, fp in raw["tables"].items()
            },
            objects=tuple(ObjectEntry(**entry) for entry in raw["objects"]),
            signing_key_sha256=raw.get("signing_key_sha256", ""),
        )

    @property
    def object_bytes(self) -> int:
        return sum(entry.size for entry in self.objects)


def schema_revision(conn: Connection) -> str:
    if not inspect(conn).has_table("alembic_version"):
        return ""
    return str(conn.execute(text("SELECT version_num FROM alembic_version")).scalar() or "")


def pinned_tables(conn: Connection) -> list[Table]:
    """The model tables present in this database that a manifest pins, by name."""
    present = set(inspect(conn).get_table_names())
    return [
        table
        for name, table in sorted(SQLModel.metadata.tables.items())
        if name in present and name not in UNPINNED_TABLES
    ]


def iter_rows(
    conn: Connection, table: Table, order_by: str | None = None
) -> Iterator[dict[str, Any]]:
    """Every row as a column → value mapping, streamed (optionally in one column's order)."""
    query = select(table)
    if order_by is not None:
        query = query.order_by(table.c[order_by], *table.primary_key.columns)
    result = conn.execution_options(yield_per=5000).execute(query)
    for row in result.mappings():
        yield dict(row)


def fingerprint_table(conn: Connection, table: Table) -> TableFingerprint:
    digests = sorted(hashlib.sha256(canonical_json(row)).digest() for row in iter_rows(conn, table))
    return TableFingerprint(len(digests), hashlib.sha256(b"".join(digests)).hexdigest())


def fingerprint_database(conn: Connection) -> dict[str, TableFingerprint]:
    return {table.name: fingerprint_table(conn, table) for table in pinned_tables(conn)}


def inventory_objects(storage: ObjectStorage) -> list[ObjectEntry]:
    """Every object outside ``private/backups/`` with its size and SHA-256 (reads each one)."""
    entries: list[ObjectEntry] = []
    for info in storage.list():
        if info.key.startswith(BACKUP_PREFIX):
            continue
        digest, size = sha256_chunks(storage.get(info.key))
        entries.append(ObjectEntry(info.key, size, digest))
    return entries
