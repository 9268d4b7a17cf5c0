"""``/u/[handle]``: one contributor's public Tests, in the order ``?sort=`` names."""

from __future__ import annotations

import reflex as rx
from reflex.event import EventSpec

from benchmax.context import app_context
from benchmax.services import feed
from benchmax.services.accounts import find_user_by_handle
from benchmax.services.dates import Stamp, stamp
from benchmax.state.found import FoundVars
from benchmax.state.session import SessionState
from benchmax.state.sorted_list import SortedList
from benchmax.state.views.listed import CardView


class ProfileState(FoundVars, SortedList, SessionState):
    handle: rx.Field[str] = rx.field("")
    display_name: rx.Field[str] = rx.field("")
    # "12 Tests" (public ones, counted as the feed counts them) and when the account was made.
    test_count: rx.Field[str] = rx.field("")
    joined: rx.Field[Stamp] = rx.field(default_factory=Stamp)
    items: rx.Field[list[CardView]] = rx.field(default_factory=list)
    next_cursor: rx.Field[str] = rx.field("")
    tab_title: rx.Field[str] = rx.field("Contributor · BenchMax")

    def _filters(self) -> feed.FeedFilters:
        return feed.FeedFilters(contributor=self.handle, sort=self.sort)

    def _load(self, cursor: str | None) -> None:
        with app_context().session() as session:
            page = feed.list_feed(
                session, self._filters(), cursor, app_context().settings.feed_page_size
            )
            if cursor is None:
                self.test_count = feed.count_feed(
                    session, feed.FeedFilters(contributor=self.handle)
                ).text
        cards = [CardView.of(card) for card in page.items]
        self.items = [*self.items, *cards] if cursor else cards
        self.next_cursor = page.next_cursor or ""

    @rx.event
    def on_load(self) -> None:
        user = self._look_up(find_user_by_handle)
        self.loaded, self.found = True, user is not None
        self.items, self.next_cursor = [], ""
        if user is None:
            self.tab_title = "Not found · BenchMax"
            return
        self.handle, self.display_name = user.handle, user.display_name or user.handle
        self.joined = stamp(user.created_at)
        self.tab_title = f"{self.display_name} (@{self.handle}) · BenchMax"
        self._sort_from_url()
        self._load(None)

    @rx.event
    def set_sort(self, value: str) -> EventSpec:
        moved = self._pick_sort(value)
        self._load(None)
        return moved

    @rx.event
    def load_more(self) -> None:
        if self.next_cursor:
            self._load(self.next_cursor)
