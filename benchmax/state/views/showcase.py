"""The showcase lines of a Test's page: its rank in the current snapshot and its prompt group."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from benchmax.presentation.formatting import count_text
from benchmax.services.dates import human_day
from benchmax.services.leaderboard.snapshots import Placement
from benchmax.services.prompts.groups import GroupLink
from benchmax.state.views.listed import LinkView


@dataclass(frozen=True)
class ShowcaseLines:
    """Where the Test is ranked and which group it is in, when either is true."""

    ranked: LinkView = field(default_factory=LinkView)
    group: LinkView = field(default_factory=LinkView)

    @classmethod
    def of(cls, ranked: Placement | None, group: GroupLink | None) -> ShowcaseLines:
        lines = cls()
        if ranked is not None:
            day = human_day(ranked.published_at)
            link = LinkView(
                f"Ranked #{ranked.rank} in the {day} showcase",
                f"/leaderboard?snapshot={ranked.snapshot_id}",
            )
            lines = replace(lines, ranked=link)
        if group is not None:
            link = LinkView(
                f"{count_text(group.others, 'other setup')} tried this prompt",
                group.compare_url,
            )
            lines = replace(lines, group=link)
        return lines
