"""Write every section as JSON Lines and CSV, then publish them with a manifest.

Rows stream from the database into temporary files while each file's SHA-256 and row count
are taken, so memory holds one batch whatever the size of the site. Files land under
``exports/<generation>/``, then the manifest beside them, and last ``exports/current.json``,
the pointer the user-content origin reads: until that one small write, readers see the
previous export whole, and after it the new one whole. Generations before the previous one
are deleted; the previous one is kept so a download already under way can finish.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import IO, Any

from sqlmodel import Session

from benchmax.adapters.storage import EXPORTS_PREFIX, ObjectStorage
from benchmax.adapters.storage.export_manifest import (
    CURRENT_KEY,
    MANIFEST_NAME,
    ExportFile,
    Manifest,
    read_current,
)
from benchmax.models._base import new_id
from benchmax.services.exports.csv_cells import safe_cell
from benchmax.services.exports.sections import SECTIONS, ExportContext, ExportSection
from benchmax.services.labels import DECLARED_LABEL

CONTENT_TYPES = {"jsonl": "application/x-ndjson", "csv": "text/csv; charset=utf-8"}


@dataclass
class _Sink:
    """One output file being written: its bytes, hash and row count."""

    name: str
    file: IO[bytes]
    digest: Any
    rows: int = 0
    size: int = 0

    def write(self, data: bytes) -> None:
        self.file.write(data)
        self.digest.update(data)
        self.size += len(data)


def _json_line(record: dict[str, Any]) -> bytes:
    # U+2028/2029 are line breaks to some readers (str.splitlines); escape them too.
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    return (text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029") + "\n").encode()


def _csv_line(values: list[object]) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerow(values)
    return buffer.getvalue().encode()


def _write_section(session: Session, ctx: ExportContext, section: ExportSection) -> Iterator[_Sink]:
    jsonl = _Sink(f"{section.name}.jsonl", tempfile.TemporaryFile(), hashlib.sha256())  # noqa: SIM115
    table = _Sink(f"{section.name}.csv", tempfile.TemporaryFile(), hashlib.sha256())  # noqa: SIM115
    table.write(_csv_line(list(section.columns)))
    for record in section.rows(session, ctx):
        jsonl.write(_json_line({column: record[column] for column in section.columns}))
        table.write(_csv_line([safe_cell(record[column]) for column in section.columns]))
        jsonl.rows += 1
        table.rows += 1
    yield jsonl
    yield table


def _store(storage: ObjectStorage, prefix: str, sink: _Sink) -> ExportFile:
    sink.file.seek(0)
    extension = sink.name.rsplit(".", 1)[1]
    storage.put(prefix + sink.name, sink.file, content_type=CONTENT_TYPES[extension])
    sink.file.close()
    return ExportFile(
        name=sink.name,
        section=sink.name.rsplit(".", 1)[0],
        format=extension,
        content_type=CONTENT_TYPES[extension],
        rows=sink.rows,
        bytes=sink.size,
        sha256=sink.digest.hexdigest(),
    )


def generate_export(
    session: Session, storage: ObjectStorage, ctx: ExportContext, licence: str,
    *, now: datetime | None = None,
) -> Manifest:  # fmt: skip
    """Write and publish a new export of every public record; answer its manifest."""
    generation = new_id()
    prefix = f"{EXPORTS_PREFIX}{generation}/"
    files: list[ExportFile] = []
    for section in SECTIONS:
        for sink in _write_section(session, ctx, section):
            files.append(_store(storage, prefix, sink))
    manifest = Manifest(
        generation=generation,
        generated_at=(now or datetime.now(UTC)).isoformat(timespec="seconds"),
        licence=licence,
        terms_url=f"{ctx.app_origin}/terms",
        setup_label=DECLARED_LABEL,
        files=files,
        sections={section.name: section.description for section in SECTIONS},
    )
    body = manifest.to_bytes()
    storage.put(prefix + MANIFEST_NAME, [body], content_type="application/json")
    previous = read_current(storage)
    storage.put(CURRENT_KEY, [manifest.pointer_bytes(body)], content_type="application/json")
    _delete_old(storage, keep={generation, previous.generation if previous else ""})
    return manifest


def _delete_old(storage: ObjectStorage, keep: set[str]) -> None:
    for info in list(storage.list(EXPORTS_PREFIX)):
        generation = info.key.removeprefix(EXPORTS_PREFIX).split("/", 1)[0]
        if info.key != CURRENT_KEY and generation not in keep:
            storage.delete(info.key)
