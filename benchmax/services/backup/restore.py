"""``restore``: rebuild BenchMax from a backup into *fresh* resources, then verify it.

Refuses a target database that has any table or a target storage that has any object, so a
restore can never overwrite a running system. The snapshot is checked against the manifest
before anything is written; objects are copied key for key from the source storage (keys under
``private/`` stay under ``private/``, so nothing private becomes servable); then the result is
verified against the manifest at the manifest's schema revision, and only after a clean
verify is the database migrated to this code's head revision if that is newer and the
backup's local sign-in key written where the restored system will look for it. The backup's
own folder is copied as well, so ``backup verify <same backup>`` works after the switch-over.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import BinaryIO

from benchmax.adapters.storage import ObjectStorage
from benchmax.db import make_engine
from benchmax.migrations import head_revision, upgrade
from benchmax.services.backup.keys import read_signing_key, write_signing_key
from benchmax.services.backup.manifest import Manifest, sha256_chunks
from benchmax.services.backup.snapshot import database_is_empty, load_snapshot
from benchmax.services.backup.verify import (
    Difference,
    backup_folder,
    check_snapshot,
    load_manifest,
    verify,
)
from benchmax.services.errors import Conflict


class RestoreRefusedError(Conflict):
    """The target is not fresh, or the backup is damaged; nothing was written."""

    def __init__(self, message: str) -> None:
        super().__init__("restore_refused", message)


@dataclass(frozen=True)
class RestoreResult:
    manifest_key: str
    objects_copied: int
    differences: tuple[Difference, ...]
    migrated_to: str | None
    # Where the backup's local sign-in key was written; None if it holds none or none was
    # asked for (``has_signing_key`` tells which).
    signing_key_written: Path | None = None
    has_signing_key: bool = False

    @property
    def ok(self) -> bool:
        return not self.differences


def _written(handle: BinaryIO, chunks: Iterator[bytes]) -> Iterator[bytes]:
    """Write each chunk to ``handle`` and pass it on, so the download is hashed as it lands."""
    for chunk in chunks:
        handle.write(chunk)
        yield chunk


def _signing_key(
    source: ObjectStorage, folder: str, manifest: Manifest, key_path: Path | None
) -> bytes | None:
    """The backup's sign-in key, refused before anything is written if it is damaged or would
    overwrite a key already in place (a restore goes into new resources)."""
    if not manifest.signing_key_sha256:
        return None
    signing_key = read_signing_key(source, folder, manifest.signing_key_sha256)
    if signing_key is None:
        raise RestoreRefusedError("the backup's sign-in key is missing or damaged")
    if key_path is not None and key_path.exists():
        raise RestoreRefusedError(
            f"a sign-in key already exists at {key_path}; restore into new resources"
        )
    return signing_key


def _refuse_unless_new(target_url: str, target: ObjectStorage) -> None:
    """A restore never mixes with data already there."""
    if not database_is_empty(target_url):
        raise RestoreRefusedError("the target database is not empty; restore into a new one")
    if next(iter(target.list()), None) is not None:
        raise RestoreRefusedError("the target storage is not empty; restore into a new one")


def restore(
    manifest_ref: str | None,
    source: ObjectStorage,
    target_url: str,
    target: ObjectStorage,
    *,
    key_path: Path | None = None,
) -> RestoreResult:
    """Rebuild into ``target_url`` and ``target``; the backup's sign-in key goes to
    ``key_path`` (the restored system's ``BENCHMAX_LOCAL_ISSUER_KEY_PATH`` or
    ``<data>/keys/local-issuer.pem``). The backup folder itself is copied too, so the restored
    system can verify against the same backup after the switch-over."""
    loaded = load_manifest(source, manifest_ref)
    manifest = loaded.manifest
    folder = backup_folder(manifest)
    signing_key = _signing_key(source, folder, manifest, key_path)
    _refuse_unless_new(target_url, target)
    if damaged := check_snapshot(source, manifest):
        raise RestoreRefusedError(f"the backup is damaged: {damaged[0]}")

    with TemporaryDirectory(prefix="benchmax-restore-") as scratch:
        path = Path(scratch) / Path(manifest.snapshot_key).name
        with path.open("wb") as handle:
            digest, _size = sha256_chunks(_written(handle, source.get(manifest.snapshot_key)))
        if digest != manifest.snapshot_sha256:
            raise RestoreRefusedError("the snapshot changed while it was downloaded")
        load_snapshot(target_url, path, manifest.snapshot_format)

    for entry in manifest.objects:
        target.put(entry.key, source.get(entry.key))
    for info in source.list(folder):
        target.put(info.key, source.get(info.key))

    engine = make_engine(target_url)
    try:
        differences = tuple(verify(engine, target, manifest))
    finally:
        engine.dispose()
    migrated_to = None
    head = head_revision()
    if not differences and manifest.schema_revision != head:
        upgrade(target_url, head)
        migrated_to = head
    written = None
    if not differences and signing_key is not None and key_path is not None:
        write_signing_key(key_path, signing_key)
        written = key_path
    return RestoreResult(
        loaded.key,
        len(manifest.objects),
        differences,
        migrated_to,
        signing_key_written=written,
        has_signing_key=signing_key is not None,
    )
