"""Compare a live or restored BenchMax with a backup manifest, difference by difference.

Checks, in order: the manifest's own SHA-256 (on load), the schema revision, every pinned
table's row count and row fingerprint, and every object's presence, size and SHA-256, plus
objects that the manifest does not know. Backups themselves (``private/backups/``) and the
volatile operator tables are outside the comparison. An empty list means a match.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from sqlalchemy import Engine, update
from sqlmodel import col

from benchmax.adapters.storage import ObjectNotFoundError, ObjectStorage
from benchmax.db import session_scope
from benchmax.models import BackupRecord
from benchmax.models._base import utcnow
from benchmax.services.backup.keys import SIGNING_KEY_NAME, read_signing_key
from benchmax.services.backup.manifest import (
    BACKUP_PREFIX,
    MANIFEST_HASH_NAME,
    MANIFEST_NAME,
    Manifest,
    fingerprint_database,
    schema_revision,
    sha256_chunks,
)
from benchmax.services.errors import Conflict


class ManifestError(Conflict):
    """The manifest is missing, unreadable or does not match its recorded SHA-256."""

    def __init__(self, message: str) -> None:
        super().__init__("backup_damaged", message)


@dataclass(frozen=True)
class Difference:
    kind: str  # "revision", "table", "object" or "snapshot"
    subject: str
    detail: str

    def __str__(self) -> str:
        return f"{self.kind} {self.subject}: {self.detail}"


@dataclass(frozen=True)
class LoadedManifest:
    key: str
    sha256: str
    manifest: Manifest


def resolve_manifest_key(storage: ObjectStorage, ref: str | None) -> str:
    """A manifest key from a key, a backup folder name, or None for the newest backup."""
    if ref:
        if ref.endswith(MANIFEST_NAME):
            return ref
        return f"{BACKUP_PREFIX}{ref.strip('/').removeprefix(BACKUP_PREFIX)}/{MANIFEST_NAME}"
    keys = [
        info.key for info in storage.list(BACKUP_PREFIX) if info.key.endswith("/" + MANIFEST_NAME)
    ]
    if not keys:
        raise ManifestError("no backup manifest in storage")
    return max(keys)  # folder names start with a UTC timestamp


def _read(storage: ObjectStorage, key: str) -> bytes:
    try:
        return b"".join(storage.get(key))
    except ObjectNotFoundError as error:
        raise ManifestError(f"{key} is missing") from error


def load_manifest(storage: ObjectStorage, ref: str | None = None) -> LoadedManifest:
    key = resolve_manifest_key(storage, ref)
    data = _read(storage, key)
    recorded = _read(storage, key.removesuffix(MANIFEST_NAME) + MANIFEST_HASH_NAME)
    digest = hashlib.sha256(data).hexdigest()
    if recorded.split(b" ", 1)[0].decode("ascii", errors="replace").strip() != digest:
        raise ManifestError(f"{key} does not match its recorded SHA-256")
    return LoadedManifest(key, digest, Manifest.decode(data))


def check_snapshot(storage: ObjectStorage, manifest: Manifest) -> list[Difference]:
    """Whether the stored snapshot still has the bytes the manifest recorded."""
    try:
        digest, size = sha256_chunks(storage.get(manifest.snapshot_key))
    except ObjectNotFoundError:
        return [Difference("snapshot", manifest.snapshot_key, "missing")]
    if (digest, size) != (manifest.snapshot_sha256, manifest.snapshot_bytes):
        return [Difference("snapshot", manifest.snapshot_key, "bytes differ from the manifest")]
    folder = backup_folder(manifest)
    if manifest.signing_key_sha256 and (
        read_signing_key(storage, folder, manifest.signing_key_sha256) is None
    ):
        key = folder + SIGNING_KEY_NAME
        return [Difference("snapshot", key, "the sign-in key is missing or changed")]
    return []


def backup_folder(manifest: Manifest) -> str:
    """The storage prefix that holds a backup's snapshot, manifest and key."""
    return manifest.snapshot_key.rsplit("/", 1)[0] + "/"


def verify_database(engine: Engine, manifest: Manifest) -> list[Difference]:
    with engine.connect() as conn:
        revision = schema_revision(conn)
        tables = fingerprint_database(conn)
    differences: list[Difference] = []
    if revision != manifest.schema_revision:
        differences.append(
            Difference(
                "revision", "alembic_version", f"{revision!r} != {manifest.schema_revision!r}"
            )
        )
    for name in sorted(set(manifest.tables) | set(tables)):
        expected, actual = manifest.tables.get(name), tables.get(name)
        if expected is None:
            differences.append(Difference("table", name, "not in the manifest"))
        elif actual is None:
            differences.append(Difference("table", name, "missing"))
        elif actual.rows != expected.rows:
            differences.append(
                Difference("table", name, f"{actual.rows} rows, expected {expected.rows}")
            )
        elif actual.sha256 != expected.sha256:
            differences.append(Difference("table", name, "row contents differ"))
    return differences


def verify_objects(storage: ObjectStorage, manifest: Manifest) -> list[Difference]:
    present = {
        info.key: info.size for info in storage.list() if not info.key.startswith(BACKUP_PREFIX)
    }
    differences: list[Difference] = []
    for entry in manifest.objects:
        if entry.key not in present:
            differences.append(Difference("object", entry.key, "missing"))
            continue
        digest, size = sha256_chunks(storage.get(entry.key))
        if size != entry.size:
            differences.append(
                Difference("object", entry.key, f"{size} bytes, expected {entry.size}")
            )
        elif digest != entry.sha256:
            differences.append(Difference("object", entry.key, "SHA-256 differs"))
    known = {entry.key for entry in manifest.objects}
    differences.extend(
        Difference("object", key, "not in the manifest") for key in sorted(set(present) - known)
    )
    return differences


def verify(engine: Engine, storage: ObjectStorage, manifest: Manifest) -> list[Difference]:
    """Every way the database and storage differ from ``manifest``; empty when they match."""
    return verify_database(engine, manifest) + verify_objects(storage, manifest)


def record_verification(engine: Engine, manifest_key: str, differences: list[Difference]) -> bool:
    """Note the outcome on this database's record of the backup; False if it has none."""
    with session_scope(engine) as session:
        result = session.execute(
            update(BackupRecord)
            .where(col(BackupRecord.manifest_key) == manifest_key)
            .values(
                verified_at=utcnow(),
                verify_ok=not differences,
                verify_differences=len(differences),
            )
        )
    return bool(getattr(result, "rowcount", 0))
