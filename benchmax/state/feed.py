"""The public feed: filters live in the URL so a filtered view can be shared and bookmarked."""

from __future__ import annotations

from urllib.parse import urlencode

import reflex as rx
from reflex.event import EventSpec

from benchmax.context import app_context
from benchmax.services import catalog, feed
from benchmax.services.errors import ServiceError
from benchmax.state.session import SessionState
from benchmax.state.views import CardView

FILTER_KEYS = ("family", "model", "harness", "reasoning", "contributor", "status", "q", "compare")
ANY = "any"


class FeedState(SessionState):
    family: rx.Field[str] = rx.field(ANY)
    model: rx.Field[str] = rx.field("")
    harness: rx.Field[str] = rx.field("")
    reasoning: rx.Field[str] = rx.field("")
    contributor: rx.Field[str] = rx.field("")
    status: rx.Field[str] = rx.field(ANY)
    q: rx.Field[str] = rx.field("")
    compare: rx.Field[str] = rx.field("")
    items: rx.Field[list[CardView]] = rx.field(default_factory=list)
    next_cursor: rx.Field[str] = rx.field("")
    families: rx.Field[list[list[str]]] = rx.field(default_factory=list)
    error: rx.Field[str] = rx.field("")
    loaded: rx.Field[bool] = rx.field(False)
    has_filters: rx.Field[bool] = rx.field(False)

    def _filter_values(self) -> dict[str, str]:
        values = {key: str(getattr(self, key)).strip() for key in FILTER_KEYS}
        return {key: ("" if value == ANY else value) for key, value in values.items()}

    def _load(self, cursor: str | None) -> None:
        filters = feed.FeedFilters.from_query(self._filter_values())
        try:
            ctx = app_context()
            with ctx.session() as session:
                page = feed.list_feed(session, filters, cursor, ctx.settings.feed_page_size)
        except ServiceError as error:
            if error.field != "cursor":
                raise
            self.error = "That page link has expired. Showing the newest Tests instead."
            self.items, self.next_cursor = [], ""
            return
        cards = [CardView.of(card) for card in page.items]
        self.items = [*self.items, *cards] if cursor else cards
        self.next_cursor = page.next_cursor or ""
        self.error = ""

    @rx.event
    def on_load(self) -> None:
        self.load_viewer()
        params = self.router.url.query_parameters
        for key in FILTER_KEYS:
            default = ANY if key in ("family", "status") else ""
            setattr(self, key, (params.get(key) or default)[:200])
        with app_context().session() as session:
            self.families = [[slug, name] for slug, name in catalog.family_options(session)]
        self.has_filters = any(self._filter_values().values())
        self._load(None)
        self.loaded = True

    @rx.event
    def load_more(self) -> None:
        if self.next_cursor:
            self._load(self.next_cursor)

    @rx.event
    def apply_filters(self, form: dict[str, str]) -> EventSpec:
        query = {
            key: str(form.get(key, "")).strip()
            for key in FILTER_KEYS
            if str(form.get(key, "")).strip() not in ("", ANY)
        }
        return rx.redirect("/?" + urlencode(query) if query else "/")

    @rx.event
    def set_family(self, value: str) -> None:
        self.family = value

    @rx.event
    def set_status(self, value: str) -> None:
        self.status = value

    @rx.event
    def clear_filters(self) -> EventSpec:
        return rx.redirect("/")
