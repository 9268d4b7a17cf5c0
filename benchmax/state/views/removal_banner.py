"""The removal banner as the Test page shows it to moderators and owners (the notice itself
comes from ``services.moderation.removal_notice``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from benchmax.services.dates import Stamp, stamp
from benchmax.services.moderation.removal_notice import RemovalNotice


@dataclass(frozen=True)
class RemovalBanner:
    """``shown`` only for staff on a removed Test; ``by`` is "@handle" or empty."""

    shown: bool = False
    reason: str = ""
    removed: Stamp = field(default_factory=Stamp)
    by: str = ""

    @classmethod
    def of(cls, notice: RemovalNotice | None, now: datetime) -> RemovalBanner:
        if notice is None:
            return cls()
        by = f"@{notice.moderator_handle}" if notice.moderator_handle else ""
        return cls(True, notice.reason, stamp(notice.removed_at, now), by)
