"""``create_backup``: snapshot the database, inventory storage, write the manifest.

Order matters for consistency: the database snapshot is taken first and storage is listed
after it, so every object a snapshotted row names already exists when it is hashed (objects
only ever appear before their rows commit). Objects written later show up as extra objects,
which is harmless. Everything lands under ``private/backups/<UTC timestamp>-<id>/``, a prefix
the user-content service never serves. Afterwards the stored artefacts are read back and
re-hashed, and the outcome is recorded on a ``BackupRecord`` for /operations.

Object bytes are inventoried (key, size, SHA-256), not copied: they already live in the
bucket, and a restore copies them from there. Protect the bucket itself with the provider's
versioning or replication (see docs/backup-restore.md).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from tempfile import TemporaryDirectory

from sqlalchemy import Engine

from benchmax.adapters.storage import DEFAULT_CHUNK_SIZE, ObjectStorage
from benchmax.db import session_scope
from benchmax.models import BackupRecord
from benchmax.models._base import new_id, utcnow
from benchmax.services.backup.keys import store_signing_key
from benchmax.services.backup.manifest import (
    BACKUP_PREFIX,
    MANIFEST_HASH_NAME,
    MANIFEST_NAME,
    Manifest,
    inventory_objects,
    sha256_chunks,
)
from benchmax.services.backup.snapshot import take_snapshot
from benchmax.services.backup.verify import Difference, check_snapshot, load_manifest
from benchmax.services.errors import Conflict

_running = threading.Lock()


class BackupBusyError(Conflict):
    """A backup is already running in this process."""

    def __init__(self) -> None:
        super().__init__("backup_running", "a backup is already running")


@dataclass(frozen=True)
class BackupResult:
    manifest_key: str
    manifest_sha256: str
    manifest: Manifest
    record_id: str
    problems: tuple[Difference, ...]


def _upload_file(storage: ObjectStorage, key: str, path: Path) -> tuple[str, int]:
    """Stream ``path`` to ``key``, hashing on the way so the file is read once."""
    digest = hashlib.sha256()
    size = 0

    def chunks() -> Iterator[bytes]:
        nonlocal size
        with path.open("rb") as handle:
            while chunk := handle.read(DEFAULT_CHUNK_SIZE):
                digest.update(chunk)
                size += len(chunk)
                yield chunk

    storage.put(key, chunks(), content_type="application/octet-stream")
    return digest.hexdigest(), size


def _store_manifest(storage: ObjectStorage, prefix: str, manifest: Manifest) -> tuple[str, str]:
    """Write the manifest and its SHA-256 line under ``prefix``; its key and digest."""
    data = manifest.encode()
    digest, _size = sha256_chunks([data])
    manifest_key = prefix + MANIFEST_NAME
    storage.put(manifest_key, [data], content_type="application/json")
    storage.put(
        prefix + MANIFEST_HASH_NAME,
        [f"{digest}  {MANIFEST_NAME}\n".encode()],
        content_type="text/plain",
    )
    return manifest_key, digest


def create_backup(
    engine: Engine,
    storage: ObjectStorage,
    *,
    created_by: str,
    snapshot_format: str = "auto",
    now: datetime | None = None,
    signing_key: Path | None = None,
) -> BackupResult:
    """Write a snapshot and its manifest to private storage and record the backup.

    ``signing_key`` is the local sign-in key's file when the system signs in locally; it is
    stored in the backup too (see ``keys``)."""
    if not _running.acquire(blocking=False):
        raise BackupBusyError()
    try:
        started = time.perf_counter()
        now = now or utcnow()
        prefix = f"{BACKUP_PREFIX}{now:%Y%m%dT%H%M%S}Z-{new_id()[:6]}/"
        with TemporaryDirectory(prefix="benchmax-backup-") as scratch:
            snapshot = take_snapshot(engine, Path(scratch), snapshot_format)
            objects = inventory_objects(storage)
            snapshot_key = prefix + snapshot.path.name
            snapshot_sha256, snapshot_bytes = _upload_file(storage, snapshot_key, snapshot.path)
        signing_key_sha256 = store_signing_key(storage, prefix, signing_key)
        manifest = Manifest(
            created_at=now.isoformat(),
            schema_revision=snapshot.revision,
            dialect=snapshot.dialect,
            snapshot_key=snapshot_key,
            snapshot_format=snapshot.format,
            snapshot_sha256=snapshot_sha256,
            snapshot_bytes=snapshot_bytes,
            tables=snapshot.tables,
            objects=tuple(objects),
            signing_key_sha256=signing_key_sha256,
        )
        manifest_key, digest = _store_manifest(storage, prefix, manifest)
        # Read back what was stored: a backup that cannot be read is no backup.
        stored = load_manifest(storage, manifest_key)
        problems = tuple(check_snapshot(storage, stored.manifest))
        record = BackupRecord(
            manifest_key=manifest_key,
            manifest_sha256=digest,
            snapshot_format=snapshot.format,
            schema_revision=snapshot.revision,
            object_count=len(objects),
            object_bytes=manifest.object_bytes,
            duration_seconds=time.perf_counter() - started,
            created_by=created_by[:32],
            verified_at=utcnow(),
            verify_ok=not problems,
            verify_differences=len(problems),
        )
        with session_scope(engine) as session:
            session.add(record)
        return BackupResult(manifest_key, digest, manifest, record.id, problems)
    finally:
        _running.release()
