"""The export manifest, and the pointer to the current one that readers trust.

It lives beside the storage port because both sides of the contract read it: the export
service writes it and the user-content service, which may import storage but no service,
decides from it what to serve.

The manifest (``exports/<generation>/manifest.json``) is public: what each file holds, its
rows, bytes and SHA-256, when it was made and under which terms. The pointer
(``exports/current.json``) names the published generation and repeats the sizes and
hashes, plus the manifest's own; the user-content origin serves a file only when it is
listed there and its stored size matches, and the API lists what it names.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from benchmax.adapters.storage import EXPORTS_PREFIX, ObjectStorage

CURRENT_KEY = f"{EXPORTS_PREFIX}current.json"
MANIFEST_NAME = "manifest.json"
FORMAT_VERSION = 1
_NAME = re.compile(r"[a-z0-9_]{1,40}\.(jsonl|csv|json)")
_GENERATION = re.compile(r"[0-9a-z]{16}")
_POINTER_LIMIT = 256 * 1024


@dataclass(frozen=True)
class ExportFile:
    name: str
    section: str
    format: str
    content_type: str
    rows: int
    bytes: int
    sha256: str


@dataclass(frozen=True)
class Manifest:
    generation: str
    generated_at: str
    licence: str
    terms_url: str
    setup_label: str
    files: list[ExportFile]
    sections: dict[str, str] = field(default_factory=dict)
    format_version: int = FORMAT_VERSION

    @property
    def counts(self) -> dict[str, int]:
        return {file.section: file.rows for file in self.files if file.format == "jsonl"}

    def to_json(self) -> dict[str, Any]:
        body = asdict(self)
        body["counts"] = self.counts
        return body

    def to_bytes(self) -> bytes:
        return json.dumps(self.to_json(), ensure_ascii=False, indent=2).encode() + b"\n"

    def pointer_bytes(self, manifest_body: bytes) -> bytes:
        pointer = {
            "manifest": self.to_json(),
            "manifest_bytes": len(manifest_body),
            "manifest_sha256": hashlib.sha256(manifest_body).hexdigest(),
        }
        return json.dumps(pointer, ensure_ascii=False).encode()

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> Manifest:
        files = [ExportFile(**item) for item in body["files"]]
        if not all(_NAME.fullmatch(file.name) for file in files):
            raise ValueError("export file name out of pattern")
        if not _GENERATION.fullmatch(str(body["generation"])):
            raise ValueError("export generation out of pattern")
        return cls(
            generation=str(body["generation"]),
            generated_at=str(body["generated_at"]),
            licence=str(body["licence"]),
            terms_url=str(body["terms_url"]),
            setup_label=str(body["setup_label"]),
            files=files,
            sections=dict(body.get("sections", {})),
            format_version=int(body.get("format_version", FORMAT_VERSION)),
        )


@dataclass(frozen=True)
class Published:
    """The pointer's content: the manifest, and the size and hash of its stored copy."""

    manifest: Manifest
    manifest_bytes: int
    manifest_sha256: str

    def file(self, name: str) -> tuple[str, ExportFile | None]:
        """The storage key of ``name`` in this export and its listing (None: the manifest)."""
        prefix = f"{EXPORTS_PREFIX}{self.manifest.generation}/"
        if name == MANIFEST_NAME:
            return prefix + MANIFEST_NAME, None
        for file in self.manifest.files:
            if file.name == name:
                return prefix + name, file
        raise KeyError(name)


def read_published(storage: ObjectStorage) -> Published | None:
    """What ``exports/current.json`` names, or None when there is none or it is unreadable."""
    info = storage.head(CURRENT_KEY)
    if info is None or info.size > _POINTER_LIMIT:
        return None
    try:
        pointer = json.loads(b"".join(storage.get(CURRENT_KEY)))
        return Published(
            Manifest.from_json(pointer["manifest"]),
            int(pointer["manifest_bytes"]),
            str(pointer["manifest_sha256"]),
        )
    except (KeyError, TypeError, ValueError):
        return None


def read_current(storage: ObjectStorage) -> Manifest | None:
    """The published export's manifest, or None when there is none (or it is unreadable)."""
    published = read_published(storage)
    return published.manifest if published else None
