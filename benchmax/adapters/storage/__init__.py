"""Object storage: one port, a local-directory and an S3 implementation, chosen by settings.

Keys are ``/``-separated and always start with one of the prefixes below, so an inventory can
tell quarantine from published evidence from private operator data at a glance.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import BinaryIO, Protocol

from benchmax.settings import CoreSettings

QUARANTINE_PREFIX = "quarantine/"
EVIDENCE_PREFIX = "evidence/"
PRIVATE_PREFIX = "private/"

DEFAULT_CHUNK_SIZE = 256 * 1024


class ObjectNotFoundError(KeyError):
    """The key does not exist."""


class InvalidKeyError(ValueError):
    """The key is empty, absolute, or tries to leave the storage root."""


@dataclass(frozen=True)
class ObjectInfo:
    key: str
    size: int
    last_modified: datetime | None = None


class ObjectStorage(Protocol):
    """What BenchMax needs from object storage, and nothing more."""

    def put(
        self,
        key: str,
        data: Iterable[bytes] | BinaryIO,
        *,
        content_type: str = "application/octet-stream",
    ) -> ObjectInfo:
        """Store ``data`` streamed in chunks; return the stored size."""
        ...

    def get(
        self,
        key: str,
        *,
        start: int | None = None,
        end: int | None = None,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
    ) -> Iterator[bytes]:
        """Yield the object's bytes ``start``..``end`` (inclusive) in bounded chunks."""
        ...

    def head(self, key: str) -> ObjectInfo | None:
        """Size and time of the object, or None when it does not exist."""
        ...

    def copy(self, source: str, destination: str) -> None: ...

    def delete(self, key: str) -> None:
        """Remove the object; deleting a missing key is not an error."""
        ...

    def list(self, prefix: str = "") -> Iterator[ObjectInfo]:
        """Every object whose key starts with ``prefix``, in key order."""
        ...

    def check(self) -> None:
        """Raise if storage is unreachable; used by health checks."""
        ...


def build_storage(settings: CoreSettings) -> ObjectStorage:
    """The implementation the settings choose."""
    if settings.storage_backend == "s3":
        from benchmax.adapters.storage.s3 import S3Storage

        return S3Storage.from_settings(settings)
    from benchmax.adapters.storage.local import LocalStorage

    return LocalStorage(settings.resolved_storage_root)
