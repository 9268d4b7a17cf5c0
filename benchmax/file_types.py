"""The file types BenchMax accepts: the one table every part that names a type reads.

The scanner decides a file's type from its bytes and uses the extensions here only to catch a
name that promises another kind; the wizard's file picker (``accept``) and its upload script
offer exactly these; the user-content service serves these content types and keeps a download
name's extension only if the verified kind can have it. Adding a type here is the whole change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# The scanner's kinds (services/safety/result.py names the same literal). This module imports
# nothing of benchmax, so the user-content service can read it without loading the scanner.
Kind = Literal["image", "video", "text", "source"]


@dataclass(frozen=True)
class FileType:
    kind: Kind
    content_type: str  # what the scanner records when the bytes are this type
    extensions: tuple[str, ...]  # names that promise it; the first is the one a download gets
    browser_types: tuple[str, ...] = ()  # other names a browser's file picker gives it


ACCEPTED_TYPES: tuple[FileType, ...] = (
    FileType("image", "image/png", ("png",)),
    FileType("image", "image/jpeg", ("jpg", "jpeg", "jpe")),
    FileType("image", "image/webp", ("webp",)),
    FileType("image", "image/gif", ("gif",)),
    FileType("video", "video/mp4", ("mp4", "m4v")),
    FileType("video", "video/webm", ("webm",)),
    FileType("text", "text/plain; charset=utf-8", ("txt", "log", "csv")),
    FileType("text", "text/markdown; charset=utf-8", ("md", "markdown")),
    FileType("text", "application/json", ("json",)),
    FileType("text", "application/x-ndjson", ("ndjson", "jsonl")),
    FileType("source", "application/zip", ("zip",), ("application/x-zip-compressed",)),
)
KINDS: tuple[Kind, ...] = ("image", "video", "text", "source")


def of_kind(kind: Kind) -> tuple[FileType, ...]:
    return tuple(t for t in ACCEPTED_TYPES if t.kind == kind)


def extension_kinds() -> dict[str, Kind]:
    """What each accepted extension promises (lower case, no dot)."""
    return {ext: t.kind for t in ACCEPTED_TYPES for ext in t.extensions}


def text_content_types() -> dict[str, str]:
    """The content type of text bytes by the name's extension."""
    return {ext: t.content_type for t in of_kind("text") for ext in t.extensions}


def kind_suffixes(kind: Kind) -> frozenset[str]:
    """Every ``.ext`` a file of ``kind`` may be named with."""
    return frozenset(f".{ext}" for t in of_kind(kind) for ext in t.extensions)


def media_suffixes(kind: Kind) -> dict[str, str]:
    """Each content type of ``kind`` with the ``.ext`` a download of it gets."""
    return {t.content_type: f".{t.extensions[0]}" for t in of_kind(kind)}


def accept_attribute() -> str:
    """The file input's ``accept``: every accepted extension, in table order."""
    return ",".join(f".{ext}" for t in ACCEPTED_TYPES for ext in t.extensions)
