"""Evidence files: untrusted bytes that pass quarantine before anyone may see them."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, String
from sqlmodel import Field, SQLModel

from benchmax.models._base import created_field, id_field
from benchmax.models._columns import OfTest, Stamped


class EvidenceKind(StrEnum):
    IMAGE = "image"
    VIDEO = "video"
    TEXT = "text"
    SOURCE = "source"


class EvidenceState(StrEnum):
    UPLOADING = "uploading"
    QUARANTINED = "quarantined"
    APPROVED = "approved"
    BLOCKED = "blocked"
    REMOVED = "removed"


class EvidenceFile(OfTest, Stamped, table=True):
    __tablename__ = "evidence_file"

    id: str = id_field()
    kind: EvidenceKind | None = Field(default=None, sa_type=String(16))
    original_name: str = Field(max_length=255)
    safe_name: str = Field(max_length=255)
    content_type: str = Field(default="application/octet-stream", max_length=100)
    size_bytes: int = Field(default=0, ge=0)
    sha256: str = Field(default="", max_length=64)
    quarantine_key: str = Field(default="", max_length=300)
    storage_key: str = Field(default="", max_length=300)
    state: EvidenceState = Field(default=EvidenceState.UPLOADING, sa_type=String(16), index=True)
    block_code: str = Field(default="", max_length=64)
    block_reason: str = Field(default="", max_length=500)
    width: int | None = None
    height: int | None = None
    scan_report: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    position: int = Field(default=0, ge=0)
    # The name the wizard's browser gave this upload, so its Cancel can find the file even
    # when every byte had arrived before the click; empty for uploads made any other way.
    upload_key: str = Field(default="", max_length=64)


class CancelledUpload(SQLModel, table=True):
    """A wizard upload its contributor cancelled, by the key the browser named it with.

    Kept because the Cancel can reach the server before the upload it cancels has stored its
    bytes: that upload then finds this row under the Test's lock and stores nothing. Deleted
    with its draft.
    """

    __tablename__ = "cancelled_upload"

    test_id: str = Field(foreign_key="test.id", primary_key=True, max_length=16)
    upload_key: str = Field(primary_key=True, max_length=64)
    created_at: datetime = created_field()
