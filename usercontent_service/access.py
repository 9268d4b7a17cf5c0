"""Who may see which bytes: decided from the database and storage on every request.

Every refusal is the same ``None``; the caller turns it into the one fixed 404, so no
response can reveal which rule failed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import Engine
from sqlmodel import Session, select

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
_ID_PATTERN = re.compile(r"[0-9A-Za-z_-]{1,64}")
_SHA256_PATTERN = re.compile(r"[0-9a-f]{64}")


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


def may_serve(test: Test, evidence: EvidenceFile) -> bool:
    """The row-level rules; storage is checked separately by ``find_servable``."""
    if test.state != TestState.PUBLIC or evidence.state != EvidenceState.APPROVED:
        return False
    if evidence.kind not in set(EvidenceKind):
        return False  # not yet classified by the safety scan, or a kind this build does not know
    if evidence.kind == EvidenceKind.SOURCE and test.source_visibility != SourceVisibility.PUBLIC:
        return False
    # Approved bytes live under the evidence prefix; a key elsewhere (quarantine, private) is
    # a bug upstream and must not become a way to serve unscanned or operator data.
    if not evidence.storage_key.startswith(EVIDENCE_PREFIX):
        return False
    return bool(_SHA256_PATTERN.fullmatch(evidence.sha256))


def find_servable(engine: Engine, storage: ObjectStorage, evidence_id: str) -> ServableFile | None:
    """The file to serve for ``evidence_id``, or None for every reason not to."""
    if not _ID_PATTERN.fullmatch(evidence_id):
        return None
    with Session(engine) as session:
        statement = (
            select(EvidenceFile, Test)
            .join(Test, Test.id == EvidenceFile.test_id)  # type: ignore[arg-type]
            .where(EvidenceFile.id == evidence_id)
        )
        row = session.exec(statement).first()
    if row is None:
        return None
    evidence, test = row
    if not may_serve(test, evidence):
        return None
    stored = storage.head(evidence.storage_key)
    # A size that differs from the scanned row means the object is not what was approved.
    if stored is None or stored.size != evidence.size_bytes:
        return None
    return ServableFile(
        evidence_id=evidence.id,
        storage_key=evidence.storage_key,
        size=evidence.size_bytes,
        sha256=evidence.sha256,
        kind=EvidenceKind(str(evidence.kind)),
        content_type=evidence.content_type,
        safe_name=evidence.safe_name,
    )
