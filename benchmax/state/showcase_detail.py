"""The showcase lines on ``/tests/[test_id]``: its rank in the current snapshot, its group.

A substate of the Test page's state, loaded by its own ``on_load`` so the page's main load
stays as it was; both read only public facts about a public Test.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import reflex as rx

from benchmax.context import app_context
from benchmax.presentation.formatting import count_text
from benchmax.services.dates import human_day
from benchmax.services.leaderboard.snapshots import Placement, placement
from benchmax.services.prompts.groups import GroupLink, group_link
from benchmax.state.detail import TestDetailState
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
                f"/prompts/{group.prompt_key}",
            )
            lines = replace(lines, group=link)
        return lines


class TestShowcaseState(TestDetailState):
    showcase: rx.Field[ShowcaseLines] = rx.field(default_factory=ShowcaseLines)

    @rx.event
    def load_showcase(self) -> None:
        test_id = self._path_name(32)
        with app_context().session() as session:
            self.showcase = ShowcaseLines.of(
                placement(session, test_id), group_link(session, test_id)
            )
