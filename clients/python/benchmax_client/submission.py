"""One Test to submit, and the Idempotency-Key derived from what it says.

The key is a digest of the fields and of each file's name and bytes, so running the same
submission again — a harness restarted, a CI job retried, a flaky network — sends the same
key and gets the first Test back instead of a second one, while any change makes a new Test.
Only the digest leaves the machine in the header; the server keeps only a digest of that.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Literal

from benchmax_client.errors import ConfigError

KEY_PREFIX = "benchmax-client-v1-"
_CHUNK = 1024 * 1024
# Progress callback: bytes of files sent so far, bytes in all.
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Submission:
    """Every field the submission API declares; ``files`` are evidence and the source ZIP."""

    prompt: str
    model: str
    harness: str
    reasoning: str
    output: str | None = None
    model_version: str | None = None
    title: str | None = None
    settings: str | None = None
    attempts: int | None = None
    notes: str | None = None
    source_visibility: Literal["public", "private"] | None = None
    files: tuple[Path, ...] = field(default_factory=tuple)

    def __repr__(self) -> str:  # content stays out of tracebacks and logs
        return f"Submission(model={self.model!r}, files={len(self.files)})"

    def fields(self) -> dict[str, str]:
        """The form fields as the API names them; unset ones are not sent."""
        values = {
            "prompt": self.prompt,
            "model": self.model,
            "harness": self.harness,
            "reasoning": self.reasoning,
            "output": self.output,
            "model_version": self.model_version,
            "title": self.title,
            "settings": self.settings,
            "attempts": None if self.attempts is None else str(self.attempts),
            "notes": self.notes,
            "source_visibility": self.source_visibility,
        }
        return {name: value for name, value in values.items() if value is not None}

    def checked_files(self) -> list[Path]:
        """The files, each a readable regular file, or ``ConfigError`` naming the first that
        is not (before anything is sent)."""
        checked = []
        for path in self.files:
            if not path.is_file():  # a device or a pipe could be endless: never read one
                what = (
                    "is a folder"
                    if path.is_dir()
                    else "is not a regular file"
                    if path.exists()
                    else "does not exist"
                )
                raise ConfigError(f"Cannot send {path}: it {what}.")
            try:
                with path.open("rb") as handle:
                    handle.read(1)
            except OSError as error:
                raise ConfigError(f"Cannot read {path}: {error.strerror or error}.") from None
            checked.append(path)
        return checked

    def idempotency_key(self) -> str:
        """The same submission always gives the same key; any change gives another."""
        files = [[path.name, _file_digest(path)] for path in self.checked_files()]
        canonical = json.dumps({"fields": self.fields(), "files": files}, sort_keys=True)
        return KEY_PREFIX + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


class _Counted:
    """A file that reports how far it has been read, for the upload progress line.

    It keeps ``fileno``/``seek``/``tell`` so the HTTP client still sends a Content-Length
    (the server refuses an oversized body from that alone) and rewinds it for a retry.
    """

    def __init__(self, handle: BinaryIO, moved: Callable[[int, int], None]) -> None:
        self._handle = handle
        self._moved = moved
        self._position = 0

    def read(self, size: int = -1) -> bytes:
        chunk = self._handle.read(size)
        self._advance(self._position + len(chunk))
        return chunk

    def seek(self, offset: int, whence: int = 0) -> int:
        position = self._handle.seek(offset, whence)
        if whence == 0:
            self._advance(position)
        return position

    def tell(self) -> int:
        return self._handle.tell()

    def fileno(self) -> int:
        return self._handle.fileno()

    def _advance(self, position: int) -> None:
        self._moved(position - self._position, 0)
        self._position = position


@contextmanager
def opened_files(
    paths: list[Path], progress: Progress | None = None
) -> Iterator[list[tuple[str, tuple[str, Any]]]]:
    """The multipart ``files`` entries, open for the request and closed after it."""
    total = sum(path.stat().st_size for path in paths)
    sent = 0

    def moved(delta: int, _unused: int) -> None:
        nonlocal sent
        sent += delta
        if progress is not None:
            progress(min(max(sent, 0), total), total)

    with ExitStack() as stack:
        entries = []
        for path in paths:
            handle = stack.enter_context(path.open("rb"))
            entries.append(("files", (path.name, _Counted(handle, moved))))
        yield entries
