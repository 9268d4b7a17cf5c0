"""``/leaderboard``: one published snapshot, its policy in plain words, filters in the URL."""

from __future__ import annotations

from urllib.parse import urlencode

import reflex as rx
from reflex.event import EventSpec

from benchmax.context import app_context
from benchmax.presentation.formatting import count_text
from benchmax.services import catalog
from benchmax.services.dates import Stamp, stamp
from benchmax.services.errors import ServiceError
from benchmax.services.leaderboard import board, jobs, signing, snapshots
from benchmax.state.session import SessionState
from benchmax.state.views.leaderboard import BoardEntryView, PolicyView, SnapshotOption

FILTER_KEYS = ("family", "model", "harness", "reasoning", "single")
ANY = "any"
# The orders a reader can pick, as (URL value, label); the first is the default.
SORT_LABELS = (
    ("rank", "Rank"),
    ("score", "Score, lowest first"),
    ("reviews", "Most reviews"),
    ("model", "Model, A to Z"),
)


class LeaderboardState(SessionState):
    loaded: rx.Field[bool] = rx.field(False)
    snapshot_id: rx.Field[str] = rx.field("")
    selected: rx.Field[str] = rx.field("")
    published: rx.Field[Stamp] = rx.field(default_factory=Stamp)
    superseded: rx.Field[bool] = rx.field(False)
    sha256: rx.Field[str] = rx.field("")
    # The snapshot's Ed25519 signature and its key's fingerprint ("" for unsigned old ones).
    signature: rx.Field[str] = rx.field("")
    key_fingerprint: rx.Field[str] = rx.field("")
    row_count: rx.Field[str] = rx.field("")
    sort: rx.Field[str] = rx.field("rank")
    # [label, href, "true" for the current order] for each order a reader can pick.
    sort_links: rx.Field[list[list[str]]] = rx.field(default_factory=list)
    policy: rx.Field[PolicyView] = rx.field(default_factory=PolicyView)
    snapshots: rx.Field[list[SnapshotOption]] = rx.field(default_factory=list)
    families: rx.Field[list[list[str]]] = rx.field(default_factory=list)
    family: rx.Field[str] = rx.field(ANY)
    model: rx.Field[str] = rx.field("")
    harness: rx.Field[str] = rx.field("")
    reasoning: rx.Field[str] = rx.field("")
    single: rx.Field[bool] = rx.field(False)
    has_filters: rx.Field[bool] = rx.field(False)
    # How many of the panel's filters are set, as its closed toggle says.
    filter_count: rx.Field[int] = rx.field(0)
    items: rx.Field[list[BoardEntryView]] = rx.field(default_factory=list)
    next_cursor: rx.Field[str] = rx.field("")
    error: rx.Field[str] = rx.field("")
    notice: rx.Field[str] = rx.field("")

    @rx.var
    def is_owner(self) -> bool:
        return self.viewer_role == "owner"

    @rx.var
    def json_href(self) -> str:
        return f"/api/v1/leaderboard/snapshots/{self.snapshot_id}/download.json"

    @rx.var
    def csv_href(self) -> str:
        return f"/api/v1/leaderboard/snapshots/{self.snapshot_id}/download.csv"

    @rx.var
    def slice_note(self) -> str:
        """Why a filtered or re-sorted view is still the sealed snapshot, or "" for the full one."""
        if not self.has_filters and self.sort == "rank":
            return ""
        shown = "A filtered slice" if self.has_filters else "A re-sorted view"
        return (
            f"{shown} of the sealed snapshot: ranks, bands and intervals are the full "
            f"snapshot's ({self.row_count}), not recomputed, so they still verify."
        )

    def _filters(self) -> board.BoardFilters:
        return board.BoardFilters(
            family="" if self.family == ANY else self.family,
            model=self.model,
            harness=self.harness,
            reasoning=self.reasoning,
            single_attempt=self.single,
        )

    def _load(self, cursor: str | None) -> None:
        try:
            with app_context().session() as session:
                page = board.board_page(
                    session, self.selected or None, self._filters(), cursor, 25, self.sort
                )
        except (board.InvalidBoardCursorError, snapshots.SnapshotNotFoundError):
            self.error = "That snapshot or page does not exist. Showing the latest snapshot."
            self.selected = ""
            if cursor is None:
                self._load(None)
            return
        rows = [BoardEntryView.of(entry) for entry in page.items]
        self.items = [*self.items, *rows] if cursor else rows
        self.next_cursor = page.next_cursor or ""
        if page.snapshot is None:
            self.snapshot_id = ""
            return
        self.snapshot_id = page.snapshot.id
        self.published = stamp(page.snapshot.published_at)
        self.superseded = page.snapshot.superseded_by is not None
        self.sha256 = page.snapshot.sha256
        self.signature = page.snapshot.signature
        self.key_fingerprint = (
            signing.fingerprint(page.snapshot.public_key) if page.snapshot.public_key else ""
        )
        self.row_count = count_text(page.snapshot.row_count, "ranked Test")
        self.policy = PolicyView.of(page.snapshot.policy)

    @rx.event
    def on_load(self) -> None:
        self.load_viewer()
        params = self.router.url.query_parameters
        self.selected = str(params.get("snapshot", ""))[:16]
        self.family = str(params.get("family") or ANY)[:64]
        for key in ("model", "harness", "reasoning"):
            setattr(self, key, str(params.get(key, ""))[:200])
        self.single = str(params.get("single", "")) == "1"
        sort = str(params.get("sort", ""))
        self.sort = sort if sort in board.SORTS else "rank"
        self.sort_links = [
            [label, self._href(sort=value), str(value == self.sort).lower()]
            for value, label in SORT_LABELS
        ]
        self.filter_count = len(self._filters().to_query())
        self.has_filters = self.filter_count > 0
        self.error = self.notice = ""
        with app_context().session() as session:
            self.families = [[slug, name] for slug, name in catalog.family_options(session)]
            self.snapshots = [
                SnapshotOption(s.id, stamp(s.published_at), s.superseded_by is None)
                for s in snapshots.list_snapshots(session)
            ]
        self._load(None)
        self.loaded = True

    @rx.event
    def load_more(self) -> None:
        if self.next_cursor:
            self._load(self.next_cursor)

    def _href(self, **changes: str) -> str:
        query = dict(self._filters().to_query())
        if self.selected:
            query["snapshot"] = self.selected
        query["sort"] = self.sort
        query.update(changes)
        query = {k: v for k, v in query.items() if v and v != ANY}
        if query["sort"] == "rank":
            del query["sort"]
        return "/leaderboard" + ("?" + urlencode(query) if query else "")

    @rx.event
    def apply_filters(self, form: dict[str, str]) -> EventSpec:
        query = {
            key: str(form.get(key, "")).strip()
            for key in FILTER_KEYS
            if str(form.get(key, "")).strip() not in ("", ANY)
        }
        if "single" in query:
            query["single"] = "1"
        if self.selected:
            query["snapshot"] = self.selected
        if self.sort != "rank":
            query["sort"] = self.sort
        return rx.redirect("/leaderboard" + ("?" + urlencode(query) if query else ""))

    @rx.event
    def select_snapshot(self, snapshot_id: str) -> EventSpec:
        return rx.redirect(self._href(snapshot=snapshot_id))

    @rx.event
    def set_family(self, value: str) -> None:
        self.family = value

    @rx.event
    def clear_filters(self) -> EventSpec:
        kept = {"snapshot": self.selected, "sort": "" if self.sort == "rank" else self.sort}
        query = urlencode({key: value for key, value in kept.items() if value})
        return rx.redirect("/leaderboard" + ("?" + query if query else ""))

    @rx.event
    def request_snapshot(self) -> None:
        job = self._attempt(jobs.request_owner_snapshot)
        if isinstance(job, ServiceError):
            self.error = job.message
            return
        self.error = ""
        self.notice = (
            "A new snapshot is being built. Refresh in a moment to see it."
            if job
            else "A snapshot is already being built. Refresh in a moment."
        )
