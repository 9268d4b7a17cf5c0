"""The showcase lines on ``/tests/[test_id]``: its rank in the current snapshot, its group.

A substate of the Test page's state, loaded by its own ``on_load`` so the page's main load
stays as it was; both read only public facts about a public Test.
"""

from __future__ import annotations

import reflex as rx

from benchmax.context import app_context
from benchmax.services.dates import human_date
from benchmax.services.leaderboard.snapshots import placement
from benchmax.services.prompts.groups import group_link
from benchmax.state.detail import TestDetailState


class TestShowcaseState(TestDetailState):
    ranked_text: rx.Field[str] = rx.field("")
    ranked_href: rx.Field[str] = rx.field("")
    group_text: rx.Field[str] = rx.field("")
    group_href: rx.Field[str] = rx.field("")

    @rx.event
    def load_showcase(self) -> None:
        test_id = str(self.router.url.path).rstrip("/").rsplit("/", 1)[-1][:32]
        with app_context().session() as session:
            ranked = placement(session, test_id)
            group = group_link(session, test_id)
        self.ranked_text = self.ranked_href = self.group_text = self.group_href = ""
        if ranked is not None:
            day = human_date(ranked.published_at).split(",")[0]
            self.ranked_text = f"Ranked #{ranked.rank} in the {day} showcase"
            self.ranked_href = f"/leaderboard?snapshot={ranked.snapshot_id}"
        if group is not None:
            noun = "setup" if group.others == 1 else "setups"
            self.group_text = f"{group.others} other {noun} tried this prompt"
            self.group_href = f"/prompts/{group.prompt_key}"
