"""The showcase: versioned ranking policies and immutable, hash-sealed snapshots.

A snapshot is written while ``building`` and flipped to ``published`` in the same
transaction. From then on the database refuses to UPDATE or DELETE it or any of its rows
(triggers in migration 0011, on SQLite and PostgreSQL), and accepts a row INSERT into it only
at a position it has not filled (which is all a restore ever does). That a newer snapshot
replaced it is recorded in the append-only ``leaderboard_supersession`` table, so superseding
never touches the old one.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import Index, String, Text
from sqlmodel import Field, SQLModel

from benchmax.models._base import created_field, id_field, time_field


class SnapshotStatus(StrEnum):
    BUILDING = "building"
    PUBLISHED = "published"


class LeaderboardPolicy(SQLModel, table=True):
    """One version of the ranking rules. Append-only: a change is a new version."""

    __tablename__ = "leaderboard_policy"

    id: str = id_field()
    version: int = Field(unique=True, ge=1)
    formula: str = Field(max_length=64)
    prior_weight: int = Field(ge=0)
    prior_mean_rule: str = Field(max_length=64)
    # Comma-separated, sorted: which reviewer kinds count, and which AI judge snapshots.
    review_kinds: str = Field(max_length=100)
    judge_snapshot_ids: str = Field(default="", sa_type=Text)
    eligibility: str = Field(max_length=64)
    created_by: str = Field(default="", max_length=64)
    created_at: datetime = created_field()


class LeaderboardSnapshot(SQLModel, table=True):
    __tablename__ = "leaderboard_snapshot"
    __table_args__ = (Index("ix_leaderboard_snapshot_listing", "status", "published_at"),)

    id: str = id_field()
    status: SnapshotStatus = Field(default=SnapshotStatus.BUILDING, sa_type=String(16))
    # What asked for it (a scheduled slot, a CLI run, an owner); unique so a retried job
    # finds the snapshot it already published instead of publishing a second one.
    request_key: str = Field(max_length=64, unique=True)
    policy_id: str = Field(foreign_key="leaderboard_policy.id", max_length=16)
    # Canonical JSON of the policy as applied (formula, m, C, eligibility, cutoff).
    policy_json: str = Field(sa_type=Text)
    prior_mean_bp: int = Field(default=0, ge=0)
    cutoff_at: datetime = created_field()
    row_count: int = Field(default=0, ge=0)
    sha256: str = Field(default="", max_length=64)
    # The chain and the signature (migration 0017): the seal covers the previous snapshot's
    # seal, and the seal's hex is signed by the Ed25519 key whose raw public key is stored
    # here. ``key_rotation`` is the old key's signed hand-over, on the first snapshot a new
    # key signs. Snapshots published before 0017 have none of these and are verified as before.
    previous_id: str = Field(default="", max_length=16)
    previous_sha256: str = Field(default="", max_length=64)
    public_key: str = Field(default="", max_length=64)
    signature: str = Field(default="", max_length=128)
    key_rotation: str = Field(default="", max_length=300)
    created_at: datetime = created_field()
    published_at: datetime | None = time_field()


class LeaderboardRow(SQLModel, table=True):
    """One ranked Test in one snapshot; every column is covered by the snapshot's hash."""

    __tablename__ = "leaderboard_row"
    __table_args__ = (
        Index("ix_leaderboard_row_test", "test_id", "snapshot_id"),
        Index("ix_leaderboard_row_family", "snapshot_id", "family_id", "position"),
        Index("ix_leaderboard_row_model", "snapshot_id", "catalog_model_id", "position"),
        Index("ix_leaderboard_row_model_key", "snapshot_id", "model_key", "position"),
        Index("ix_leaderboard_row_harness", "snapshot_id", "harness_id", "position"),
        Index("ix_leaderboard_row_harness_key", "snapshot_id", "harness_key", "position"),
        Index("ix_leaderboard_row_reasoning", "snapshot_id", "reasoning_key", "position"),
    )

    snapshot_id: str = Field(foreign_key="leaderboard_snapshot.id", primary_key=True, max_length=16)
    position: int = Field(primary_key=True, ge=1)
    rank: int = Field(ge=1)
    test_id: str = Field(foreign_key="test.id", max_length=16)
    score_bp: int = Field(ge=0)
    review_count: int = Field(ge=1)
    score_min: int = Field(ge=0, le=100)
    score_max: int = Field(ge=0, le=100)
    # The score's 95% interval and the rank band it implies (benchmax.services.leaderboard.
    # intervals); 0 on rows of snapshots published before migration 0017.
    score_low_bp: int = Field(default=0, ge=0)
    score_high_bp: int = Field(default=0, ge=0)
    band_first: int = Field(default=0, ge=0)
    band_last: int = Field(default=0, ge=0)
    # The counted review ids, sorted, comma-separated.
    review_ids: str = Field(sa_type=Text)
    # The declared setup as it was at the cutoff, so filters are index range scans. Attempts
    # has no index: "declared single attempt" is common enough that walking positions in
    # order finds a page within a few dozen rows, and every index slows the build.
    family_id: str = Field(default="", max_length=16)
    catalog_model_id: str = Field(default="", max_length=16)
    model_key: str = Field(default="", max_length=200)
    harness_id: str = Field(default="", max_length=16)
    harness_key: str = Field(default="", max_length=200)
    reasoning_key: str = Field(default="", max_length=100)
    attempts: int | None = Field(default=None, ge=1)


class LeaderboardSupersession(SQLModel, table=True):
    """Append-only: ``snapshot_id`` was replaced by ``superseded_by_id`` at ``created_at``."""

    __tablename__ = "leaderboard_supersession"

    snapshot_id: str = Field(foreign_key="leaderboard_snapshot.id", primary_key=True, max_length=16)
    superseded_by_id: str = Field(foreign_key="leaderboard_snapshot.id", max_length=16)
    created_at: datetime = created_field()
