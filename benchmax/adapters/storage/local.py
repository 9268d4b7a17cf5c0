"""Object storage in a local directory: the embedded default.

Writes go to a temporary file under ``.partial/`` in the same root and are renamed into place,
so a reader never sees half an object and a crash leaves nothing under a real key. No valid key
can name ``.partial/`` because keys may not have dot segments.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

from benchmax.adapters.storage import (
    DEFAULT_CHUNK_SIZE,
    InvalidKeyError,
    InvalidRangeError,
    ObjectInfo,
    ObjectNotFoundError,
    ObjectStorage,
    iter_chunks,
    validate_key,
)

_PARTIAL_DIR = ".partial"


class LocalStorage(ObjectStorage):
    """Objects are files under ``root``; the key is the relative path."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        self._partial = self.root / _PARTIAL_DIR
        self._partial.mkdir(parents=True, exist_ok=True)

    def _path(self, key: str) -> Path:
        """The file of a key the port has validated."""
        path = (self.root / key).resolve()
        # Key validation already forbids escaping; this also catches a symlink planted inside.
        if not path.is_relative_to(self.root) or path == self.root:
            raise InvalidKeyError("key resolves outside the storage root")
        return path

    def _write_atomically(self, path: Path, chunks: Iterable[bytes]) -> int:
        size = 0
        fd, temp_name = tempfile.mkstemp(dir=self._partial)
        try:
            with os.fdopen(fd, "wb") as handle:
                for chunk in chunks:
                    handle.write(chunk)
                    size += len(chunk)
                handle.flush()
                os.fsync(handle.fileno())
            path.parent.mkdir(parents=True, exist_ok=True)
            os.replace(temp_name, path)
        except BaseException:
            Path(temp_name).unlink(missing_ok=True)
            raise
        return size

    def _put(self, key: str, chunks: Iterator[bytes], content_type: str) -> ObjectInfo:
        # The local backend keeps no metadata: readers choose the type from the database row.
        del content_type
        path = self._path(key)
        size = self._write_atomically(path, chunks)
        return ObjectInfo(key=key, size=size, last_modified=_mtime(path))

    def _get(
        self, key: str, start: int | None, end: int | None, chunk_size: int
    ) -> Iterator[bytes]:
        path = self._path(key)
        try:
            handle = path.open("rb")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError) as error:
            raise ObjectNotFoundError(key) from error
        try:
            size = os.fstat(handle.fileno()).st_size
            first, last = _resolve_range(size, start, end)
            handle.seek(first)
        except BaseException:
            handle.close()
            raise
        # The file is opened here, not in the generator, so a missing key fails at call time.
        return _read(handle, last - first + 1, chunk_size)

    def _head(self, key: str) -> ObjectInfo | None:
        path = self._path(key)
        if not path.is_file():
            return None
        return ObjectInfo(key=key, size=path.stat().st_size, last_modified=_mtime(path))

    def _copy(self, source: str, destination: str) -> None:
        source_path = self._path(source)
        destination_path = self._path(destination)
        try:
            handle = source_path.open("rb")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError) as error:
            raise ObjectNotFoundError(source) from error
        with handle:
            self._write_atomically(destination_path, iter_chunks(handle, DEFAULT_CHUNK_SIZE))

    def _delete(self, key: str) -> None:
        path = self._path(key)
        if path.is_file():
            path.unlink(missing_ok=True)

    def list(self, prefix: str = "") -> Iterator[ObjectInfo]:
        # Walk only the directory the prefix names, then filter on the full prefix.
        directory, _, _ = prefix.rpartition("/")
        base = self._path(validate_key(directory)) if directory else self.root
        keys: list[str] = []
        for current, dirnames, filenames in os.walk(base):
            dirnames[:] = [name for name in dirnames if not name.startswith(".")]
            relative = Path(current).relative_to(self.root).as_posix()
            for name in filenames:
                key = name if relative == "." else f"{relative}/{name}"
                if key.startswith(prefix) and not name.startswith("."):
                    keys.append(key)
        for key in sorted(keys):
            info = self.head(key)
            if info is not None:  # deleted since the walk
                yield info

    def check(self) -> None:
        if not self.root.is_dir() or not os.access(self._partial, os.W_OK):
            raise OSError(f"storage root {self.root} is not a writable directory")


def _resolve_range(size: int, start: int | None, end: int | None) -> tuple[int, int]:
    """Inclusive bounds for the request; like HTTP, an end past the object is clamped."""
    if start is None and end is None:
        return 0, size - 1
    first = start or 0
    if first >= size:
        raise InvalidRangeError("range starts past the end of the object")
    last = size - 1 if end is None else min(end, size - 1)
    return first, last


def _read(handle: BinaryIO, remaining: int, chunk_size: int) -> Iterator[bytes]:
    with handle:
        while remaining > 0:
            chunk = handle.read(min(chunk_size, remaining))
            if not chunk:
                return
            remaining -= len(chunk)
            yield chunk


def _mtime(path: Path) -> datetime:
    return datetime.fromtimestamp(path.stat().st_mtime, UTC)
