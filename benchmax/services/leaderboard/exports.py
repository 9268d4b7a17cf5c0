"""Downloadable snapshots: the same rows, policy and hash as JSON and as CSV, streamed.

The JSON file is itself canonical JSON: ``{"policy", "rows", "sha256", "snapshot"}``.
Anyone can check it without BenchMax: take ``policy`` and ``rows``, dump
``{"policy": policy, "rows": rows}`` with ``json.dumps(sort_keys=True, separators=(",", ":"),
ensure_ascii=False)``, and the SHA-256 of its UTF-8 bytes is ``sha256``.

Both files are streamed a keyset batch at a time, so a 100,000-row snapshot never sits in
memory. They hold ids, numbers and normalised label keys only — no titles or other
contributor text — so a spreadsheet opening the CSV has nothing to execute.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator

from sqlmodel import Session

from benchmax.services.dates import iso
from benchmax.services.leaderboard.scoring import canonical_json
from benchmax.services.leaderboard.snapshots import (
    ROW_FIELDS,
    canonical_row,
    iter_rows,
    published_snapshot,
    summary,
)

CSV_COLUMNS = ("position", *ROW_FIELDS)
HASH_RULE = (
    "sha256 = SHA-256 of the UTF-8 canonical JSON of {policy, rows} "
    "(sorted keys, no spaces, ensure_ascii off)"
)


def json_chunks(session: Session, snapshot_id: str) -> Iterator[str]:
    """The snapshot as canonical JSON text, in pieces."""
    snapshot = published_snapshot(session, snapshot_id)
    meta = summary(snapshot, None).to_json()
    for name in ("superseded_by", "status", "policy"):
        meta.pop(name)
    yield '{"policy":' + canonical_json(json.loads(snapshot.policy_json)) + ',"rows":['
    for index, row in enumerate(iter_rows(session, snapshot.id)):
        yield ("," if index else "") + canonical_json(canonical_row(row))
    yield '],"sha256":' + canonical_json(snapshot.sha256)
    yield ',"snapshot":' + canonical_json(meta) + "}"


def csv_chunks(session: Session, snapshot_id: str) -> Iterator[str]:
    """The snapshot as CSV: ``#`` lines with the policy and hash, then a header and rows."""
    snapshot = published_snapshot(session, snapshot_id)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    published = iso(summary(snapshot, None).published_at)
    yield f"# BenchMax showcase snapshot {snapshot.id}, published {published}\n"
    yield f"# policy: {canonical_json(json.loads(snapshot.policy_json))}\n"
    yield f"# sha256: {snapshot.sha256}\n# {HASH_RULE}\n"
    writer.writerow(CSV_COLUMNS)
    for index, row in enumerate(iter_rows(session, snapshot.id), start=1):
        values = canonical_row(row)
        writer.writerow([values[name] for name in CSV_COLUMNS])
        if index % 1000 == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()
