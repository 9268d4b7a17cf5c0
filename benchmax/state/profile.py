"""``/u/[handle]``: one contributor's public Tests."""

from __future__ import annotations

import reflex as rx

from benchmax.context import app_context
from benchmax.services import feed
from benchmax.services.accounts import find_user_by_handle
from benchmax.state.found import FoundVars
from benchmax.state.session import SessionState
from benchmax.state.views.listed import CardView


class ProfileState(FoundVars, SessionState):
    handle: rx.Field[str] = rx.field("")
    display_name: rx.Field[str] = rx.field("")
    items: rx.Field[list[CardView]] = rx.field(default_factory=list)
    next_cursor: rx.Field[str] = rx.field("")
    tab_title: rx.Field[str] = rx.field("Contributor · BenchMax")

    def _load(self, cursor: str | None) -> None:
        filters = feed.FeedFilters.from_query({"contributor": self.handle})
        with app_context().session() as session:
            page = feed.list_feed(session, filters, cursor, app_context().settings.feed_page_size)
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
        self.tab_title = f"{self.display_name} (@{self.handle}) · BenchMax"
        self._load(None)

    @rx.event
    def load_more(self) -> None:
        if self.next_cursor:
            self._load(self.next_cursor)
