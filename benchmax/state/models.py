"""``/models`` and ``/models/[slug]``: the catalog and the Tests that declared each entry."""

from __future__ import annotations

import reflex as rx
from reflex.event import EventSpec

from benchmax.context import app_context
from benchmax.services import catalog, feed
from benchmax.state.session import SessionState
from benchmax.state.sorted_list import SortedList
from benchmax.state.views.catalog import DeclaredLabelView, FamilyView, ModelView
from benchmax.state.views.listed import CardView


class ModelsState(SessionState):
    families: rx.Field[list[FamilyView]] = rx.field(default_factory=list)
    declared: rx.Field[list[DeclaredLabelView]] = rx.field(default_factory=list)
    loaded: rx.Field[bool] = rx.field(False)

    @rx.event
    def on_load(self) -> None:
        self.load_viewer()
        with app_context().session() as session:
            families = catalog.list_families(session)
            declared = catalog.declared_unmatched_labels(session, limit=50)
        self.families = [FamilyView.of(family) for family in families]
        self.declared = [DeclaredLabelView.of(label) for label in declared]
        self.loaded = True


class ModelDetailState(SortedList, SessionState):
    loaded: rx.Field[bool] = rx.field(False)
    found: rx.Field[bool] = rx.field(False)
    slug: rx.Field[str] = rx.field("")
    name: rx.Field[str] = rx.field("")
    subtitle: rx.Field[str] = rx.field("")
    models: rx.Field[list[ModelView]] = rx.field(default_factory=list)
    items: rx.Field[list[CardView]] = rx.field(default_factory=list)
    next_cursor: rx.Field[str] = rx.field("")

    def _page(self, cursor: str | None) -> feed.FeedPage | None:
        limit = app_context().settings.feed_page_size
        with app_context().session() as session:
            family = catalog.family_detail(session, self.slug, cursor, limit, self.sort)
            if family is not None:
                if cursor is None:
                    self.name = family.family.name
                    self.subtitle = f"{family.family.vendor} · model family".strip(" ·")
                    self.models = [ModelView.of(m) for m in family.models]
                return family.page
            model = catalog.model_detail(session, self.slug, cursor, limit, self.sort)
            if model is None:
                return None
            if cursor is None:
                self.name = model.model.name
                self.subtitle = f"{model.model.family_name} family"
                self.models = []
            return model.page

    def _first_page(self) -> None:
        page = self._page(None)
        self.found = page is not None
        self.items = [CardView.of(c) for c in page.items] if page else []
        self.next_cursor = (page.next_cursor or "") if page else ""

    @rx.event
    def on_load(self) -> None:
        self.load_viewer()
        self.slug = str(self.router.url.path).rstrip("/").rsplit("/", 1)[-1][:100]
        self._sort_from_url()
        self._first_page()
        self.loaded = True

    @rx.event
    def set_sort(self, value: str) -> EventSpec:
        moved = self._pick_sort(value)
        self._first_page()
        return moved

    @rx.event
    def load_more(self) -> None:
        if not self.next_cursor:
            return
        page = self._page(self.next_cursor)
        if page is not None:
            self.items = [*self.items, *[CardView.of(c) for c in page.items]]
            self.next_cursor = page.next_cursor or ""
