"""What of a Test a judge may read: bounded text sections and a few images as data URLs.

Bounds are pinned in the snapshot (``EvidenceBounds``): characters per file and in total,
how many images and how large, how many ZIP entries are read and how much of each. Only
approved evidence is read; a private source ZIP is for the automated preview alone and is
never sent; a public ZIP contributes its text entries only (by name, and only when they
decode as UTF-8), read without extracting anything to disk. Whatever a bound cuts is marked
"[truncated]" or counted in an "[omitted]" line, so the judge knows it saw a part.
"""

from __future__ import annotations

import base64
import codecs
import io
import zipfile
from dataclasses import asdict, dataclass, fields
from typing import Any

from sqlmodel import Session, col, select

from benchmax.adapters.storage import ObjectStorage
from benchmax.models import EvidenceFile, EvidenceKind, EvidenceState, SourceVisibility, Test
from benchmax.services.judge.prompt import EvidenceSection

_TEXT_SUFFIXES = (
    ".txt", ".md", ".markdown", ".json", ".ndjson", ".log", ".csv", ".py", ".js", ".mjs", ".ts",
    ".tsx", ".jsx", ".html", ".htm", ".css", ".scss", ".svg", ".xml", ".yaml", ".yml", ".toml",
    ".rs", ".go", ".java", ".kt", ".c", ".h", ".cpp", ".hpp", ".cs", ".rb", ".php", ".sh",
    ".sql", ".swift", ".vue", ".svelte", ".ini", ".cfg",
)  # fmt: skip
_IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif")
TRUNCATED = "\n[truncated]"


@dataclass(frozen=True)
class EvidenceBounds:
    max_file_chars: int = 20_000
    max_total_chars: int = 60_000
    max_text_files: int = 10
    max_images: int = 4
    max_image_bytes: int = 2 * 1024 * 1024
    max_request_bytes: int = 8 * 1024 * 1024
    max_zip_entries: int = 20
    max_zip_entry_chars: int = 10_000
    max_zip_bytes: int = 20 * 1024 * 1024

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EvidenceBounds:
        known = {item.name for item in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown evidence bounds: {', '.join(unknown)}")
        for key, value in data.items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"evidence bound {key} must be a whole number >= 0")
        return cls(**data)

    def to_json(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True)
class JudgeEvidence:
    sections: list[EvidenceSection]
    image_urls: list[str]


class _Budget:
    """Characters left in the request; every section draws from it."""

    def __init__(self, total: int) -> None:
        self.left = total

    def take(self, text: str, cap: int) -> str:
        limit = min(cap, self.left)
        cut = text[:limit]
        self.left -= len(cut)
        return cut + TRUNCATED if len(cut) < len(text) else cut


def _read(storage: ObjectStorage, key: str, limit: int) -> bytes:
    data = bytearray()
    for chunk in storage.get(key, chunk_size=64 * 1024):
        data.extend(chunk[: limit - len(data)])
        if len(data) >= limit:
            break
    return bytes(data)


def _zip_sections(
    raw: bytes, name: str, bounds: EvidenceBounds, budget: _Budget
) -> list[EvidenceSection]:
    sections: list[EvidenceSection] = []
    skipped = 0
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        for info in archive.infolist():
            if info.is_dir():
                continue
            if not info.filename.lower().endswith(_TEXT_SUFFIXES) or budget.left <= 0:
                skipped += 1
                continue
            if len(sections) >= bounds.max_zip_entries:
                skipped += 1
                continue
            with archive.open(info) as entry:
                head = entry.read(bounds.max_zip_entry_chars * 4 + 4)
            try:
                # Not final: the cut may fall inside a character; bytes that are not UTF-8
                # anywhere else mean the entry is not text.
                text = codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
            except UnicodeDecodeError:
                skipped += 1
                continue
            cut = budget.take(text, bounds.max_zip_entry_chars)
            sections.append(EvidenceSection(f"Source file {name}: {info.filename[:200]}", cut))
    if skipped:
        sections.append(EvidenceSection(f"Source {name}", f"[{skipped} entries omitted]"))
    return sections


def build_evidence(
    session: Session, storage: ObjectStorage, test: Test, bounds: EvidenceBounds
) -> JudgeEvidence:
    """The Test's evidence within ``bounds``; identity blinding comes after, on this text."""
    budget = _Budget(bounds.max_total_chars)
    sections = [EvidenceSection("Prompt", budget.take(test.prompt, bounds.max_file_chars))]
    sections.append(EvidenceSection("Reasoning setting", test.reasoning_label[:100]))
    if test.settings_text.strip():
        sections.append(EvidenceSection("Settings", budget.take(test.settings_text, 4000)))
    if test.notes.strip():
        sections.append(EvidenceSection("Notes", budget.take(test.notes, 4000)))
    if test.output_text.strip():
        sections.append(
            EvidenceSection("Output", budget.take(test.output_text, bounds.max_file_chars))
        )
    files = session.exec(
        select(EvidenceFile)
        .where(EvidenceFile.test_id == test.id, EvidenceFile.state == EvidenceState.APPROVED)
        .order_by(col(EvidenceFile.position), col(EvidenceFile.id))
    ).all()
    images: list[str] = []
    request_bytes = 0
    text_files = 0
    omitted = 0
    for file in files:
        if file.kind == EvidenceKind.TEXT and text_files < bounds.max_text_files and budget.left:
            raw = _read(storage, file.storage_key, bounds.max_file_chars * 4)
            text = raw.decode("utf-8", errors="replace")
            sections.append(
                EvidenceSection(f"File {file.safe_name}", budget.take(text, bounds.max_file_chars))
            )
            text_files += 1
        elif (
            file.kind == EvidenceKind.IMAGE
            and file.content_type in _IMAGE_TYPES
            and len(images) < bounds.max_images
            and file.size_bytes <= bounds.max_image_bytes
            and request_bytes + file.size_bytes * 4 // 3 <= bounds.max_request_bytes
        ):
            raw = _read(storage, file.storage_key, bounds.max_image_bytes)
            encoded = base64.b64encode(raw).decode("ascii")
            images.append(f"data:{file.content_type};base64,{encoded}")
            request_bytes += len(encoded)
        elif (
            file.kind == EvidenceKind.SOURCE
            and test.source_visibility == SourceVisibility.PUBLIC
            and file.size_bytes <= bounds.max_zip_bytes
            and budget.left
        ):
            raw = _read(storage, file.storage_key, bounds.max_zip_bytes)
            try:
                sections.extend(_zip_sections(raw, file.safe_name, bounds, budget))
            except zipfile.BadZipFile:
                omitted += 1
        else:
            omitted += 1
    if omitted:
        sections.append(EvidenceSection("Other files", f"[{omitted} files omitted]"))
    return JudgeEvidence(sections, images)
