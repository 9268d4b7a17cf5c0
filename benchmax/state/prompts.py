"""``/prompts`` (the largest comparison groups) and ``/prompts/[key]`` (one group)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import reflex as rx
from reflex.event import EventSpec

from benchmax.context import app_context
from benchmax.presentation.formatting import count_text
from benchmax.services.dates import stamp
from benchmax.services.errors import ServiceError
from benchmax.services.feed_order import TOP_SCORE
from benchmax.services.preview.compare import preview_figures
from benchmax.services.preview.view import PreviewView
from benchmax.services.prompts import groups, side_by_side
from benchmax.services.prompts.side_by_side import member_extras
from benchmax.state.found import FoundVars
from benchmax.state.session import SessionState
from benchmax.state.sorted_list import SortedList
from benchmax.state.views.prompts import AliasView, CompareView, GroupRow, MemberView

# Columns added per "Show more": each shows an output, so fewer than a list of cards.
PAGE = 12


class PromptsState(SessionState):
    loaded: rx.Field[bool] = rx.field(False)
    groups: rx.Field[list[GroupRow]] = rx.field(default_factory=list)

    @rx.event
    def on_load(self) -> None:
        self.load_viewer()
        with app_context().session() as session:
            found = groups.largest_groups(session)
        self.groups = [GroupRow.of(g.prompt_key, g.title, g.size) for g in found]
        self.loaded = True


class PromptGroupState(FoundVars, SortedList, SessionState):
    key: rx.Field[str] = rx.field("")
    headline: rx.Field[str] = rx.field("")
    prompt: rx.Field[str] = rx.field("")
    # Opens the wizard on a new draft holding this prompt (``same_prompt_as``).
    try_href: rx.Field[str] = rx.field("")
    total: rx.Field[int] = rx.field(0)
    members: rx.Field[list[MemberView]] = rx.field(default_factory=list)
    similar: rx.Field[list[GroupRow]] = rx.field(default_factory=list)
    aliases: rx.Field[list[AliasView]] = rx.field(default_factory=list)
    prior_weight: rx.Field[int] = rx.field(0)
    # The comparison the address names (``?compare=A,B``), or why it cannot be shown.
    comparison: rx.Field[CompareView] = rx.field(default_factory=CompareView)
    compare_error: rx.Field[str] = rx.field("")
    picked: rx.Field[list[str]] = rx.field(default_factory=list)
    alias_reason: rx.Field[str] = rx.field("")
    alias_error: rx.Field[str] = rx.field("")
    alias_notice: rx.Field[str] = rx.field("")
    _all: list[MemberView] = []

    @rx.var
    def is_moderator(self) -> bool:
        return self.viewer_role in ("moderator", "owner")

    @rx.var
    def total_text(self) -> str:
        return count_text(self.total, "public Test")

    @rx.var
    def more(self) -> bool:
        return len(self.members) < self.total

    @rx.var
    def columns(self) -> str:
        """How many columns share a wide screen: every member, two to four of them."""
        return str(max(2, min(4, len(self.members))))

    @rx.var
    def comparing(self) -> bool:
        return self.comparison.html != "" or self.comparison.counts != ""

    def _shown(self, views: list[MemberView]) -> list[MemberView]:
        """The next members' columns: their preview figures, output heads and images, read
        only for the members shown, so a group of a thousand costs a page."""
        ids = [view.id for view in views]
        with app_context().session() as session:
            figures = preview_figures(session, app_context().settings, ids)
            extras = member_extras(session, ids)
        return [view.shown(figures[view.id], extras[view.id]) for view in views]

    def _own_sort(self) -> str:
        """A group is ranked: its own order is the score order."""
        return TOP_SCORE

    def _fill(self) -> None:
        with app_context().session() as session:
            group = groups.prompt_group(session, self.key)
        self.found = group is not None
        if group is None:
            self._all, self.members, self.similar, self.aliases, self.total = [], [], [], [], 0
            return
        self.prompt = group.prompt
        self.headline = groups.prompt_headline(group.prompt)
        own = next(m for m in group.members if m.prompt_key == self.key)
        self.try_href = f"/submit?same_prompt_as={own.test.id}"
        self._all = [
            MemberView.of(m, place, PreviewView())
            for place, m in groups.in_order(group.members, self.sort)
        ]
        self.total = len(self._all)
        self.members = self._shown(self._all[:PAGE])
        self.similar = [
            GroupRow.of(s.prompt_key, s.title, s.size, f"{s.similarity_percent}% similar")
            for s in group.similar
        ]
        self.aliases = [
            AliasView(f"/prompts/{a.other_key}", a.reason, stamp(a.created_at))
            for a in group.aliases
        ]
        self.prior_weight = group.prior_weight

    def _compare(self, raw: str) -> None:
        """The comparison ``raw`` names; a refusal is shown and the group stays as it is."""
        self.comparison, self.compare_error, self.picked = CompareView(), "", []
        if not raw:
            return
        try:
            with app_context().session() as session:
                found = side_by_side.compare_members(session, self.key, raw)
        except ServiceError as error:
            self.compare_error = error.message
            return
        self.comparison = CompareView.of(self.key, found)

    @rx.event
    def on_load(self) -> None:
        self.load_viewer()
        self.key = self._path_name()
        self.alias_error = self.alias_notice = ""
        self._sort_from_url()
        self._fill()
        raw = self.router.url.query_parameters.get("compare", "")
        self._compare(raw if isinstance(raw, str) else ",".join(map(str, raw)))
        self.loaded = True

    @rx.event
    def set_sort(self, value: str) -> EventSpec:
        moved = self._pick_sort(value)
        self._fill()
        return moved

    @rx.event
    def show_more(self) -> None:
        shown = len(self.members)
        self.members = self.members + self._shown(self._all[shown : shown + PAGE])

    @rx.event
    def pick(self, test_id: str) -> Any:
        """Pick a member to compare, or put it back; the second pick opens the comparison at
        its own address, so it can be shared and reopened."""
        if test_id in self.picked:
            self.picked = [picked for picked in self.picked if picked != test_id]
            return None
        self.picked = [*self.picked, test_id][-2:]
        if len(self.picked) < 2:
            return None
        # The order the reader chose stays in the address (the menu rewrote it in place, so
        # the router's copy of the address may predate it).
        query = {**self._sort_query(), "compare": ",".join(self.picked)}
        return rx.redirect(f"/prompts/{self.key}?{urlencode(query, safe=',')}")

    @rx.event
    def set_alias_reason(self, value: str) -> None:
        self.alias_reason = value[:2000]

    @rx.event
    def join(self, other_key: str) -> None:
        joined = self._attempt(
            lambda s, u: groups.record_alias(s, u, self.key, other_key, self.alias_reason)
        )
        if isinstance(joined, ServiceError):
            self.alias_error = joined.message
            return
        self.alias_error, self.alias_reason = "", ""
        self.alias_notice = "Recorded: these prompts are now one comparison group."
        self._fill()
