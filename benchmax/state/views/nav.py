"""What the header's staff links show: which consoles the viewer may open and what waits there."""

from __future__ import annotations

from dataclasses import dataclass

from benchmax.services.moderation.nav_counts import NavCounts


@dataclass(frozen=True)
class NavView:
    may_moderate: bool = False
    may_operate: bool = False
    moderation: int = 0
    operations: int = 0

    @classmethod
    def of(cls, counts: NavCounts) -> NavView:
        return cls(counts.may_moderate, counts.may_operate, counts.moderation, counts.operations)
