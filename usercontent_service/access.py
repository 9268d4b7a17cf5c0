"""Who may see which bytes: decided from the database and storage on every request.

Every refusal is the same ``None``; the caller turns it into the one fixed 404, so no
response can reveal which rule failed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import Engine, Select, select
from sqlmodel import col

from benchmax.adapters.storage import EVIDENCE_PREFIX, ObjectStorage
from benchmax.models import (
    EvidenceFile,
    EvidenceKind,
    EvidenceState,
    SourceVisibility,
    Test,
    TestState,
)

# Wider than today's ids on purpose (the id format may change) but never a path, a query or
# anything long: a malformed id is refused before the database is asked.
ID_PATTERN = re.compile(r"[0-9A-Za-z_-]{1,64}")
SHA256_PATTERN = re.compile(r"[0-9a-f]{64}")
_EVIDENCE_COLUMNS = (
    "id",
    "test_id",
    "kind",
    "state",
    "storage_key",
    "size_bytes",
    "sha256",
    "content_type",
    "safe_name",
)


@dataclass(frozen=True)
class ServableFile:
    """What the response needs, copied out of the rows so no session outlives the lookup."""

    evidence_id: str
    storage_key: str
    size: int
    sha256: str
    kind: EvidenceKind
    content_type: str
    safe_name: str


class _Row(Protocol):
    """The columns one lookup reads: never the prompt, output or scan report."""

    id: str
    kind: str | None
    state: str
    storage_key: str
    size_bytes: int
    sha256: str
    content_type: str
    safe_name: str
    test_state: str
    source_visibility: str


def _lookup(evidence_id: str) -> Select[*tuple[Any, ...]]:
    return (
        select(
            col(EvidenceFile.id),
            col(EvidenceFile.kind),
            col(EvidenceFile.state),
            col(EvidenceFile.storage_key),
            col(EvidenceFile.size_bytes),
            col(EvidenceFile.sha256),
            col(EvidenceFile.content_type),
            col(EvidenceFile.safe_name),
            col(Test.state).label("test_state"),
            col(Test.source_visibility),
        )
        .join(Test, col(Test.id) == col(EvidenceFile.test_id))
        .where(col(EvidenceFile.id) == evidence_id)
    )


def may_serve(row: _Row) -> bool:
    """The row-level rules; storage is checked separately by ``find_servable``."""
    if row.test_state != TestState.PUBLIC or row.state != EvidenceState.APPROVED:
        return False
    if row.kind not in set(EvidenceKind):
        return False  # not yet classified by the safety scan, or a kind this build does not know
    if row.kind == EvidenceKind.SOURCE and row.source_visibility != SourceVisibility.PUBLIC:
        return False
    # Approved bytes live under the evidence prefix; a key elsewhere (quarantine, private) is
    # a bug upstream and must not become a way to serve unscanned or operator data.
    if not row.storage_key.startswith(EVIDENCE_PREFIX):
        return False
    return bool(SHA256_PATTERN.fullmatch(row.sha256))


def find_servable(engine: Engine, storage: ObjectStorage, evidence_id: str) -> ServableFile | None:
    """The file to serve for ``evidence_id``, or None for every reason not to."""
    if not ID_PATTERN.fullmatch(evidence_id):
        return None
    with engine.connect() as connection:
        row = connection.execute(_lookup(evidence_id)).first()
    if row is None or not may_serve(row):
        return None
    stored = storage.head(row.storage_key)
    # A size that differs from the scanned row means the object is not what was approved.
    if stored is None or stored.size != row.size_bytes:
        return None
    return ServableFile(
        evidence_id=row.id,
        storage_key=row.storage_key,
        size=row.size_bytes,
        sha256=row.sha256,
        kind=EvidenceKind(str(row.kind)),
        content_type=row.content_type,
        safe_name=row.safe_name,
    )
