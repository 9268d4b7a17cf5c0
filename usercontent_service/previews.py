"""Automated preview artifacts (screenshot, video, result JSON) under ``/p/{artifact_id}/{name}``.

The same fail-closed rule as evidence: served only while the Test is public and the object
is what was recorded (its size), under the preview prefix; anything else is the one 404. A
private source ZIP is never reachable here: only what the evaluator produced is.

Derived bytes follow their source: an artifact is served only while the very ZIP it was made
from (the evaluation's file, same Test, same SHA-256) is still an approved source file.
Blocking or removing that ZIP takes its screenshot, recording and result down on the next
request, whatever the Test's own state.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, Select, select
from sqlmodel import col

from benchmax.adapters.storage import PREVIEW_PREFIX, ObjectStorage
from benchmax.models import (
    EvidenceFile,
    EvidenceKind,
    EvidenceState,
    PreviewArtifact,
    PreviewEvaluation,
    Test,
    TestState,
)
from usercontent_service.access import ID_PATTERN, SHA256_PATTERN
from usercontent_service.sending import StoredObject

# Only what the evaluator writes, each as the type it is; JSON as an attachment.
_SERVED_TYPES = {
    "image/png": "inline",
    "image/webp": "inline",
    "video/webm": "inline",
    "application/json": "attachment",
}


def _source_still_approved(row: Any) -> bool:
    """The ZIP the artifact was derived from is still an approved source file, unchanged."""
    return bool(
        row.source_state == EvidenceState.APPROVED
        and row.source_kind == EvidenceKind.SOURCE
        and row.source_sha256 == row.zip_sha256
    )


def find_preview_artifact(
    engine: Engine, storage: ObjectStorage, artifact_id: str
) -> StoredObject | None:
    if not ID_PATTERN.fullmatch(artifact_id):
        return None
    query: Select[*tuple[Any, ...]] = (
        select(
            col(PreviewArtifact.storage_key),
            col(PreviewArtifact.size_bytes),
            col(PreviewArtifact.sha256),
            col(PreviewArtifact.content_type),
            col(PreviewArtifact.kind),
            col(Test.state).label("test_state"),
            col(EvidenceFile.state).label("source_state"),
            col(EvidenceFile.kind).label("source_kind"),
            col(EvidenceFile.sha256).label("source_sha256"),
            col(PreviewEvaluation.zip_sha256),
        )
        .join(PreviewEvaluation, col(PreviewEvaluation.id) == col(PreviewArtifact.evaluation_id))
        .join(Test, col(Test.id) == col(PreviewEvaluation.test_id))
        .join(
            EvidenceFile,
            (col(EvidenceFile.id) == col(PreviewEvaluation.evidence_id))
            & (col(EvidenceFile.test_id) == col(PreviewEvaluation.test_id)),
        )
        .where(col(PreviewArtifact.id) == artifact_id)
    )
    with engine.connect() as connection:
        row = connection.execute(query).first()
    if row is None or row.test_state != TestState.PUBLIC or not _source_still_approved(row):
        return None
    disposition = _SERVED_TYPES.get(row.content_type)
    if disposition is None or not row.storage_key.startswith(PREVIEW_PREFIX):
        return None
    if not SHA256_PATTERN.fullmatch(row.sha256):
        return None
    stored = storage.head(row.storage_key)
    if stored is None or stored.size != row.size_bytes:
        return None
    extension = row.content_type.rsplit("/", 1)[-1]
    filename = f"preview-{row.kind}-{artifact_id}.{extension}"
    return StoredObject(
        row.storage_key,
        row.size_bytes,
        row.sha256,
        row.content_type,
        f'{disposition}; filename="{filename}"',
    )
