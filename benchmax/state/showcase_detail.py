"""The showcase lines on ``/tests/[test_id]``: its rank in the current snapshot, its group.

A substate of the Test page's state, loaded by its own ``on_load`` so the page's main load
stays as it was; both read only public facts about a public Test.
"""

from __future__ import annotations

import reflex as rx

from benchmax.context import app_context
from benchmax.services.leaderboard.snapshots import placement
from benchmax.services.prompts.groups import group_link
from benchmax.state.detail import TestDetailState
from benchmax.state.views.showcase import ShowcaseLines


class TestShowcaseState(TestDetailState):
    showcase: rx.Field[ShowcaseLines] = rx.field(default_factory=ShowcaseLines)

    @rx.event
    def load_showcase(self) -> None:
        test_id = self._path_name(32)
        with app_context().session() as session:
            self.showcase = ShowcaseLines.of(
                placement(session, test_id), group_link(session, test_id)
            )
