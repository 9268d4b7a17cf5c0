"""The public feed: filters, order and how many pages are shown live in the URL, so a view can
be shared, bookmarked, and found again by the browser's Back button.

Filters apply as they change; the URL is then rewritten in place (no navigation, no reload).
``pages`` counts the "Load more" pages shown, so Back from a Test rebuilds the same list and
the page script puts the reader back where they were.
"""

from __future__ import annotations

import json
from urllib.parse import urlencode

import reflex as rx
from reflex.event import EventSpec

from benchmax.context import app_context
from benchmax.models import ReviewState
from benchmax.services import catalog, feed
from benchmax.services.errors import ServiceError
from benchmax.services.feed_order import RELEVANCE, SORTS
from benchmax.state.session import SessionState
from benchmax.state.sorted_list import REPLACE_URL
from benchmax.state.views.listed import CardView

TEXT_KEYS = ("model", "harness", "reasoning", "contributor", "q")
FILTER_KEYS = ("family", "status", *TEXT_KEYS, "compare", "sort")
# The filters inside the "More filters" panel: the search box and the sort menu sit outside it.
PANEL_KEYS = ("family", "status", "model", "harness", "reasoning", "contributor", "compare")
ANY = "any"
# Back after this many "Load more" pages rebuilds only this many; the rest is a click away.
MAX_RESTORE_PAGES = 10

# After the list is in place: remember the scroll position per address, and after a Back
# (in-app or a real history navigation) scroll to the remembered one once the page is tall
# enough to hold it. It waits on the page, not on a count of frames or a few seconds, which
# a slow phone spends before the list has grown; the reader's own wheel, touch or key ends
# the wait (their scroll wins), and 20 s is the backstop. Scrolls are not recorded between
# the Back and the restore.
_SCROLL = """(function(){var w=window,k=function(){return 'feed-scroll:'+location.search;};
if(!w.__bmFeed){w.__bmFeed=1;var t=0;
w.addEventListener('popstate',function(){w.__bmBack=1;});
w.addEventListener('scroll',function(){clearTimeout(t);t=setTimeout(function(){
if(location.pathname!=='/'||w.__bmBack)return;
try{sessionStorage.setItem(k(),String(Math.round(w.scrollY)));}catch(e){}},120);},
{passive:true});}
var nav=performance.getEntriesByType('navigation')[0];
var back=w.__bmBack||(!w.__bmSeen&&nav&&nav.type==='back_forward');w.__bmSeen=1;
if(!back){w.__bmBack=0;return;}
var y=0;try{y=+sessionStorage.getItem(k())||0;}catch(e){}
var t0=performance.now(),own=0,mine=function(){own=1;},ev=['wheel','touchstart','keydown'];
ev.forEach(function(e){w.addEventListener(e,mine,{passive:true,once:true});});
(function go(){var h=document.documentElement.scrollHeight;
if(own||h>=y+w.innerHeight||performance.now()-t0>20000){if(!own)w.scrollTo(0,y);w.__bmBack=0;
ev.forEach(function(e){w.removeEventListener(e,mine);});}
else{w.requestAnimationFrame(go);}})();})()"""


def _clean(key: str, value: str) -> str:
    """A URL or form value as the state keeps it; unknown select values fall back to any."""
    value = feed.clean_param(value, 200)
    if key == "status" and value.lower() not in {state.value for state in ReviewState}:
        return ANY
    if key == "sort" and value.lower() not in SORTS:
        return ""
    if key == "compare":
        return "on" if value.lower() in ("1", "on", "yes", "true") else ""
    return value.lower() if key in ("status", "sort") else value


class FeedState(SessionState):
    family: rx.Field[str] = rx.field(ANY)
    model: rx.Field[str] = rx.field("")
    harness: rx.Field[str] = rx.field("")
    reasoning: rx.Field[str] = rx.field("")
    contributor: rx.Field[str] = rx.field("")
    status: rx.Field[str] = rx.field(ANY)
    q: rx.Field[str] = rx.field("")
    compare: rx.Field[str] = rx.field("")
    sort: rx.Field[str] = rx.field("")
    items: rx.Field[list[CardView]] = rx.field(default_factory=list)
    next_cursor: rx.Field[str] = rx.field("")
    pages: rx.Field[int] = rx.field(1)
    count: rx.Field[str] = rx.field("")
    families: rx.Field[list[list[str]]] = rx.field(default_factory=list)
    error: rx.Field[str] = rx.field("")
    loaded: rx.Field[bool] = rx.field(False)
    has_filters: rx.Field[bool] = rx.field(False)
    # How many of the panel's own filters are set (``PANEL_KEYS``), as its toggle says.
    filter_count: rx.Field[int] = rx.field(0)
    # Whether the filter panel starts open: set on load only, so a filter changed while the
    # visitor is looking never opens (or re-opens) the panel under them.
    panel_open: rx.Field[bool] = rx.field(False)
    # Bumped by "Clear", so the form's uncontrolled text fields are rebuilt empty.
    form_key: rx.Field[int] = rx.field(0)
    # "1" once the visitor dismissed the "how it works" strip (kept in this browser only).
    how_hidden: str = rx.LocalStorage("", name="benchmax-how-hidden")

    @rx.var
    def sort_value(self) -> str:
        """The order the list is in, as the sort menu shows it."""
        if self.sort and (self.sort != RELEVANCE or self.q):
            return self.sort
        return RELEVANCE if self.q else "newest"

    def _filter_values(self) -> dict[str, str]:
        values = {key: str(getattr(self, key)).strip() for key in FILTER_KEYS}
        return {key: ("" if value == ANY else value) for key, value in values.items()}

    def _url(self) -> str:
        query = {key: value for key, value in self._filter_values().items() if value}
        if self.pages > 1:
            query["pages"] = str(self.pages)
        return "/?" + urlencode(query) if query else "/"

    def _reload(self, pages: int = 1) -> None:
        """The first ``pages`` pages and the count, for the current filters."""
        filters = feed.FeedFilters.from_query(self._filter_values())
        ctx = app_context()
        cards: list[CardView] = []
        cursor: str | None = None
        shown = 0
        with ctx.session() as session:
            self.count = feed.count_feed(session, filters).text
            while shown < pages and (cursor or not shown):
                page = feed.list_feed(session, filters, cursor, ctx.settings.feed_page_size)
                cards += [CardView.of(c, with_group=filters.groups_only) for c in page.items]
                cursor = page.next_cursor
                shown += 1
        self.items, self.next_cursor, self.pages = cards, cursor or "", shown
        values = self._filter_values()
        self.has_filters = any(v for k, v in values.items() if k != "sort")
        self.filter_count = sum(1 for key in PANEL_KEYS if values[key])
        self.error = ""

    def _changed(self) -> list[EventSpec]:
        """Reload from page 1 and put the new view in the address bar."""
        self._reload()
        return [rx.call_script(REPLACE_URL % json.dumps(self._url()))]

    @rx.event
    def on_load(self) -> EventSpec:
        self.load_viewer()
        params = self.router.url.query_parameters
        for key in FILTER_KEYS:
            default = ANY if key in ("family", "status") else ""
            setattr(self, key, _clean(key, str(params.get(key) or default)) or default)
        raw_pages = str(params.get("pages") or "1")
        pages = int(raw_pages) if raw_pages.isdigit() and len(raw_pages) < 4 else 1
        with app_context().session() as session:
            self.families = [[slug, name] for slug, name in catalog.family_options(session)]
        self._reload(max(1, min(pages, MAX_RESTORE_PAGES)))
        self.panel_open = self.filter_count > 0
        self.loaded = True
        return rx.call_script(_SCROLL)

    @rx.event
    def load_more(self) -> list[EventSpec] | None:
        if not self.next_cursor:
            return None
        filters = feed.FeedFilters.from_query(self._filter_values())
        ctx = app_context()
        try:
            with ctx.session() as session:
                page = feed.list_feed(
                    session, filters, self.next_cursor, ctx.settings.feed_page_size
                )
        except ServiceError as error:
            if error.field != "cursor":
                raise
            self.pages = 1
            changed = self._changed()
            self.error = "That page link has expired, so the list starts again from the top."
            return changed
        more = [CardView.of(c, with_group=filters.groups_only) for c in page.items]
        self.items = [*self.items, *more]
        self.next_cursor = page.next_cursor or ""
        self.pages += 1
        return [rx.call_script(REPLACE_URL % json.dumps(self._url()))]

    @rx.event
    def set_filter(self, key: str, value: str, generation: str = "") -> list[EventSpec] | None:
        """One filter changed (a select at once, a text field after a pause in typing). A
        text field's pause that ends after "Clear" rebuilt the form is from the old
        ``generation`` and is dropped."""
        if key not in FILTER_KEYS or (generation and generation != str(self.form_key)):
            return None
        cleaned = _clean(key, str(value))
        if key in ("family", "status"):
            cleaned = cleaned or ANY
        if cleaned == getattr(self, key):
            return None
        setattr(self, key, cleaned)
        return self._changed()

    @rx.event
    def set_compare(self, checked: bool) -> list[EventSpec]:
        self.compare = "on" if checked else ""
        return self._changed()

    @rx.event
    def apply_filters(self, form: dict[str, str]) -> list[EventSpec]:
        """Enter in a field, "Search", or the phone panel's "Show": take every text field as
        it stands now, a pending pause in typing included."""
        for key in TEXT_KEYS:
            if key in form:
                setattr(self, key, _clean(key, str(form[key])))
        return self._changed()

    @rx.event
    def clear_filters(self) -> list[EventSpec]:
        for key in FILTER_KEYS:
            setattr(self, key, ANY if key in ("family", "status") else "")
        self.form_key += 1
        return self._changed()

    @rx.event
    def hide_how(self) -> None:
        self.how_hidden = "1"
