"""The showcase's answers as types, for the routes whose bodies are built in ``api/showcase.py``
and the document itself. ``extra="forbid"``: a key the handler adds without a field here is a
schema break the schemathesis test reports, so the two cannot drift apart unseen."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from benchmax.services.dates import IsoText
from benchmax.services.leaderboard.board import BoardEntry
from benchmax.services.prompts.groups import GroupSummary


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Snapshot(_Closed):
    """A published snapshot as ``SnapshotSummary.to_json`` writes it."""

    policy: dict[str, Any] = Field(description="The scoring policy the snapshot was made with.")
    id: str
    published_at: IsoText | None
    row_count: int
    sha256: str
    policy_version: int
    prior_mean_bp: int
    prior_weight: int
    superseded_by: str | None
    status: Literal["current", "superseded"]
    previous_id: str
    previous_sha256: str
    public_key: str
    key_fingerprint: str
    signature: str
    key_rotation: str


class BoardPageBody(_Closed):
    snapshot: Snapshot | None = Field(description="None before the first snapshot.")
    items: list[BoardEntry]
    next_cursor: str | None


class SnapshotList(_Closed):
    items: list[Snapshot]


class Verification(_Closed):
    snapshot_id: str
    ok: bool
    stored_sha256: str
    computed_sha256: str
    rows_ok: bool
    signed: bool
    signature_ok: bool
    chain_broken_at: str | None


class PublicKey(_Closed):
    algorithm: Literal["Ed25519"]
    public_key: str = Field(description="Raw public key, hex.")
    fingerprint: str
    signed_message: str
    key_rotation: str


class SnapshotRequested(_Closed):
    queued: bool
    job_id: int | None


class SnapshotDownload(BaseModel):
    """The sealed snapshot: policy, rows, seal and (for chained snapshots) the signature."""

    policy: dict[str, Any]
    rows: list[dict[str, Any]]
    sha256: str
    snapshot: dict[str, Any]
    previous_sha256: str | None = None
    signature: str | None = None


class LargestGroups(_Closed):
    items: list[GroupSummary]


class OpenApiDocument(BaseModel):
    """An OpenAPI 3.1 document."""

    openapi: str
    info: dict[str, Any]
    paths: dict[str, Any]
    components: dict[str, Any]
    servers: list[dict[str, Any]]
