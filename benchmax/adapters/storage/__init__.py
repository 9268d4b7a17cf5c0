"""Object storage: one port, a local-directory and an S3 implementation, chosen by settings.

Keys are ``/``-separated and always start with one of the prefixes below, so an inventory can
tell quarantine from published evidence from private operator data at a glance.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import BinaryIO

from benchmax.settings import CoreSettings

QUARANTINE_PREFIX = "quarantine/"
EVIDENCE_PREFIX = "evidence/"
PRIVATE_PREFIX = "private/"
# Published open-data exports: every byte under it was built from public rows only.
EXPORTS_PREFIX = "exports/"
# Automated preview artifacts (screenshot, video, result); served only for a public Test.
PREVIEW_PREFIX = "preview/"

DEFAULT_CHUNK_SIZE = 256 * 1024


class ObjectNotFoundError(KeyError):
    """The key does not exist."""


class InvalidKeyError(ValueError):
    """The key is empty, absolute, or tries to leave the storage root."""


class InvalidRangeError(ValueError):
    """The requested byte range is malformed or starts past the end of the object."""


MAX_KEY_BYTES = 1024  # S3's limit, applied to every backend so keys stay portable.
_FORBIDDEN_KEY_CHARS = re.compile(r"[\x00-\x1f\x7f\\]")


def validate_key(key: str) -> str:
    """Refuse keys that could escape a directory root or mean different things per backend.

    The same rules apply to S3 even though S3 would accept these keys, so an object stored
    on one backend can always be moved to the other. Segments starting with ``.`` are
    reserved: they cover ``.`` and ``..`` and leave the local backend a place for partial
    writes that no key can name.
    """
    if not key or len(key.encode("utf-8")) > MAX_KEY_BYTES:
        raise InvalidKeyError("key is empty or too long")
    if _FORBIDDEN_KEY_CHARS.search(key):
        raise InvalidKeyError("key contains a control character or backslash")
    if any(not segment or segment.startswith(".") for segment in key.split("/")):
        raise InvalidKeyError("key is absolute or has an empty or dot segment")
    return key


def check_range(start: int | None, end: int | None) -> None:
    """Refuse ranges that are wrong whatever the object's size."""
    if (start is not None and start < 0) or (end is not None and end < 0):
        raise InvalidRangeError("negative byte offset")
    if start is not None and end is not None and start > end:
        raise InvalidRangeError("range starts after it ends")


def iter_chunks(data: Iterable[bytes] | BinaryIO, chunk_size: int) -> Iterator[bytes]:
    """Read a file object in bounded chunks, or pass an iterable's chunks through.

    A file object is also an iterable of *lines*, so ``read`` is looked for first.
    """
    read = getattr(data, "read", None)
    if callable(read):
        while chunk := read(chunk_size):
            yield bytes(chunk)
    else:
        yield from (bytes(chunk) for chunk in data if chunk)


@dataclass(frozen=True)
class ObjectInfo:
    key: str
    size: int
    last_modified: datetime | None = None


class ObjectStorage(ABC):
    """What BenchMax needs from object storage, and nothing more.

    The port itself checks every key and byte range before a backend sees it, so the rules
    above hold on every backend by construction and an object stored on one can always be
    moved to the other. A backend implements the underscored methods, which receive only
    valid keys and ranges, plus ``list`` and ``check``.
    """

    def put(
        self,
        key: str,
        data: Iterable[bytes] | BinaryIO,
        *,
        content_type: str = "application/octet-stream",
    ) -> ObjectInfo:
        """Store ``data`` streamed in chunks; return the stored size."""
        return self._put(validate_key(key), iter_chunks(data, DEFAULT_CHUNK_SIZE), content_type)

    def get(
        self,
        key: str,
        *,
        start: int | None = None,
        end: int | None = None,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
    ) -> Iterator[bytes]:
        """Yield the object's bytes ``start``..``end`` (inclusive) in bounded chunks.

        A missing key or a range past the end fails here, before any byte is iterated.
        """
        check_range(start, end)
        return self._get(validate_key(key), start, end, chunk_size)

    def head(self, key: str) -> ObjectInfo | None:
        """Size and time of the object, or None when it does not exist."""
        return self._head(validate_key(key))

    def copy(self, source: str, destination: str) -> None:
        self._copy(validate_key(source), validate_key(destination))

    def delete(self, key: str) -> None:
        """Remove the object; deleting a missing key is not an error."""
        self._delete(validate_key(key))

    @abstractmethod
    def list(self, prefix: str = "") -> Iterator[ObjectInfo]:
        """Every object whose key starts with ``prefix``, in key order."""

    @abstractmethod
    def check(self) -> None:
        """Raise if storage is unreachable; used by health checks."""

    @abstractmethod
    def _put(self, key: str, chunks: Iterator[bytes], content_type: str) -> ObjectInfo: ...

    @abstractmethod
    def _get(
        self, key: str, start: int | None, end: int | None, chunk_size: int
    ) -> Iterator[bytes]: ...

    @abstractmethod
    def _head(self, key: str) -> ObjectInfo | None: ...

    @abstractmethod
    def _copy(self, source: str, destination: str) -> None: ...

    @abstractmethod
    def _delete(self, key: str) -> None: ...


def build_storage(settings: CoreSettings) -> ObjectStorage:
    """The implementation the settings choose."""
    if settings.storage_backend == "s3":
        from benchmax.adapters.storage.s3 import S3Storage

        return S3Storage.from_settings(settings)
    from benchmax.adapters.storage.local import LocalStorage

    return LocalStorage(settings.resolved_storage_root)
