"""Downloadable snapshots: the same rows, policy and seal as JSON and as CSV, streamed.

The JSON file is itself canonical JSON: ``{"policy", "previous_sha256", "rows", "sha256",
"signature", "snapshot"}`` (a snapshot from before chaining has no ``previous_sha256`` or
``signature``). Anyone can check it without BenchMax: dump ``{"policy", "rows",
"previous_sha256"}`` with ``json.dumps(sort_keys=True, separators=(",", ":"),
ensure_ascii=False)``; the SHA-256 of its UTF-8 bytes is ``sha256``, and ``signature`` is the
Ed25519 signature of ``sha256``'s ASCII hex under the key published at
``/api/v1/leaderboard/public-key`` (docs/showcase.md has the recipe).

The CSV is a plain table a strict reader accepts: one header line, one line per row, CRLF line
ends like the open-data exports, and no metadata lines (the policy, seal and signature are in
the JSON). Both files are streamed a keyset batch at a time, so a 100,000-row snapshot never
sits in memory. They hold ids, numbers and normalised label keys only — no titles or other
contributor text — so a spreadsheet opening the CSV has nothing to execute.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator

from sqlmodel import Session

from benchmax.services.leaderboard.scoring import canonical_json, sealed_chunks
from benchmax.services.leaderboard.snapshots import (
    canonical_row,
    is_chained,
    iter_rows,
    published_snapshot,
    row_fields,
    summary,
)


def json_chunks(session: Session, snapshot_id: str) -> Iterator[str]:
    """The snapshot as canonical JSON text, in pieces (keys in sorted order): the document
    its seal covers, then the seal, the signature and the snapshot's metadata."""
    snapshot = published_snapshot(session, snapshot_id)
    policy = json.loads(snapshot.policy_json)
    chained = is_chained(policy)
    meta = summary(snapshot, None).to_json()
    for name in ("superseded_by", "status", "policy", "previous_sha256", "signature"):
        meta.pop(name)
    rows = (canonical_row(row, chained) for row in iter_rows(session, snapshot.id))
    yield from sealed_chunks(policy, rows, snapshot.previous_sha256 if chained else None)
    yield ',"sha256":' + canonical_json(snapshot.sha256)
    if chained:
        yield ',"signature":' + canonical_json(snapshot.signature)
    yield ',"snapshot":' + canonical_json(meta) + "}"


def csv_columns(chained: bool) -> tuple[str, ...]:
    return ("position", *row_fields(chained))


def csv_chunks(session: Session, snapshot_id: str) -> Iterator[str]:
    """The snapshot as CSV: a header line, then one CRLF-ended line per row."""
    snapshot = published_snapshot(session, snapshot_id)
    chained = is_chained(json.loads(snapshot.policy_json))
    columns = csv_columns(chained)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(columns)
    for index, row in enumerate(iter_rows(session, snapshot.id), start=1):
        values = canonical_row(row, chained)
        writer.writerow([values[name] for name in columns])
        if index % 1000 == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()
