"""Storage inventory: objects and bytes per prefix, and orphans in both directions.

An *orphan object* is a key under ``evidence/`` or ``quarantine/`` that no evidence row names;
a *missing object* is an approved evidence row whose bytes are not in storage. The first
wastes money (and may hold bytes someone wanted gone); the second is a broken Test. Neither is
repaired automatically: a key can be written a moment before its row commits, so the report
is for an owner to look at, not for a clean-up job to act on.

Listing a large bucket is slow, so the scheduler takes the inventory with each metric sample
and the dashboard shows the latest one rather than listing storage on every page load.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session
from sqlmodel import col, select

from benchmax.adapters.storage import (
    EVIDENCE_PREFIX,
    PRIVATE_PREFIX,
    QUARANTINE_PREFIX,
    ObjectStorage,
)
from benchmax.models import EvidenceFile, EvidenceState
from benchmax.models._base import as_utc, utcnow

INVENTORY_PREFIXES = (QUARANTINE_PREFIX, EVIDENCE_PREFIX, PRIVATE_PREFIX)
ROW_BACKED_PREFIXES = (QUARANTINE_PREFIX, EVIDENCE_PREFIX)
# Enough keys to act on; the counts say how many there are in all.
ORPHAN_KEYS_KEPT = 50


@dataclass(frozen=True)
class PrefixUsage:
    prefix: str
    objects: int
    bytes: int


@dataclass(frozen=True)
class Inventory:
    taken_at: datetime
    prefixes: tuple[PrefixUsage, ...]
    orphan_object_count: int
    orphan_objects: tuple[str, ...]
    missing_object_count: int
    missing_objects: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["taken_at"] = self.taken_at.isoformat()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Inventory:
        return cls(
            taken_at=as_utc(datetime.fromisoformat(data["taken_at"])),
            prefixes=tuple(PrefixUsage(**usage) for usage in data["prefixes"]),
            orphan_object_count=int(data["orphan_object_count"]),
            orphan_objects=tuple(data["orphan_objects"]),
            missing_object_count=int(data["missing_object_count"]),
            missing_objects=tuple(data["missing_objects"]),
        )


def take_inventory(
    session: Session, storage: ObjectStorage, now: datetime | None = None
) -> Inventory:
    """List every prefix once and compare the row-backed ones with the evidence rows."""
    referenced: set[str] = set()
    approved: set[str] = set()
    rows = session.execute(
        select(col(EvidenceFile.quarantine_key), col(EvidenceFile.storage_key), EvidenceFile.state)
    )
    for quarantine_key, storage_key, state in rows:
        referenced.update(key for key in (quarantine_key, storage_key) if key)
        if state == EvidenceState.APPROVED and storage_key:
            approved.add(storage_key)

    usages: list[PrefixUsage] = []
    present: set[str] = set()
    orphans: list[str] = []
    for prefix in INVENTORY_PREFIXES:
        objects = size = 0
        for info in storage.list(prefix):
            objects += 1
            size += info.size
            present.add(info.key)
            if prefix in ROW_BACKED_PREFIXES and info.key not in referenced:
                orphans.append(info.key)
        usages.append(PrefixUsage(prefix, objects, size))
    missing = sorted(approved - present)
    return Inventory(
        taken_at=now or utcnow(),
        prefixes=tuple(usages),
        orphan_object_count=len(orphans),
        orphan_objects=tuple(orphans[:ORPHAN_KEYS_KEPT]),
        missing_object_count=len(missing),
        missing_objects=tuple(missing[:ORPHAN_KEYS_KEPT]),
    )
