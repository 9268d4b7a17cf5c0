"""``/leaderboard``: one published snapshot, its policy in plain words, filters in the URL."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import reflex as rx
from reflex.event import EventSpec

from benchmax.context import app_context
from benchmax.services import catalog
from benchmax.services.dates import human_date
from benchmax.services.errors import ServiceError
from benchmax.services.evidence_urls import evidence_url
from benchmax.services.leaderboard import board, jobs, snapshots
from benchmax.services.leaderboard.scoring import points_text
from benchmax.services.summaries import TestSummary
from benchmax.state.session import SessionState
from benchmax.state.views import attempts_text, setup_text

FILTER_KEYS = ("family", "model", "harness", "reasoning", "single")
ANY = "any"
KIND_WORDS = {"admin": "admins", "human": "approved reviewers", "ai": "AI judges"}


def policy_words(policy: dict[str, Any]) -> dict[str, str]:
    """The recorded policy as sentences a reader can check against the formula."""
    kinds = [KIND_WORDS.get(kind, kind) for kind in policy["review_kinds"]]
    judges = policy["judge_snapshot_ids"]
    counted = "Reviews counted: current reviews by " + " and ".join(
        [", ".join(kinds[:-1]), kinds[-1]] if len(kinds) > 1 else kinds
    )
    if "ai" in policy["review_kinds"]:
        trusted = ", ".join(judges) if judges else "none yet, so no AI review counts"
        counted += f". AI judge versions trusted: {trusted}"
    m, c = policy["prior_weight"], points_text(policy["prior_mean_bp"])
    return {
        "formula": f"score = (sum of counted scores + {m} \u00d7 {c}) "
        f"\u00f7 (number of counted scores + {m})",
        "prior": (
            f"m = {m}: every Test starts with {m} imaginary reviews at C = {c}, the mean of "
            "every counted review score in this snapshot, so one lucky review cannot top it."
        ),
        "counted": counted + ".",
        "eligible": (
            "Eligible: public, not removed, not a sample, no open moderation hold, and at "
            "least one current review. A correction replaces the review it corrects."
        ),
        "version": f"Policy version {policy['policy_version']} ({policy['formula']}), "
        f"cutoff {human_date(policy['cutoff'])}.",
    }


REMOVED_TITLE = "Removed by moderation after this snapshot"


def summary_dict(test: TestSummary) -> dict[str, str]:
    """The parts of a listed Test every showcase list shows, as strings."""
    thumb = ""
    if test.thumbnail_evidence_id:
        origin = app_context().settings.usercontent_origin
        thumb = evidence_url(origin, test.thumbnail_evidence_id, test.thumbnail_safe_name or "")
    return {
        "href": f"/tests/{test.id}",
        "title": test.title,
        "handle": test.contributor_handle,
        "contributor": test.contributor_display_name or test.contributor_handle,
        "setup": setup_text(
            test.model_label, test.model_version_label, test.harness_label, test.reasoning_label
        ),
        "attempts": attempts_text(test.attempts),
        "kinds": " · ".join(test.evidence_kinds) if test.evidence_kinds else "text output",
        "thumb": thumb,
        "sample": "yes" if test.is_sample else "",
        "published": human_date(test.published_at),
    }


def _entry_dict(entry: board.BoardEntry) -> dict[str, str]:
    shown = summary_dict(entry.test) if entry.test else {"href": "", "title": REMOVED_TITLE}
    return {
        **shown,
        "rank": str(entry.rank),
        # The attempts the snapshot recorded, which is what was ranked.
        "attempts": attempts_text(entry.attempts),
        "score": entry.score,
        "reviews": f"{entry.review_count} review" + ("" if entry.review_count == 1 else "s"),
        "range": f"{entry.score_min} to {entry.score_max}",
    }


class LeaderboardState(SessionState):
    loaded: rx.Field[bool] = rx.field(False)
    snapshot_id: rx.Field[str] = rx.field("")
    selected: rx.Field[str] = rx.field("")
    published: rx.Field[str] = rx.field("")
    superseded: rx.Field[bool] = rx.field(False)
    sha256: rx.Field[str] = rx.field("")
    row_count: rx.Field[str] = rx.field("")
    policy: rx.Field[dict[str, str]] = rx.field(default_factory=dict)
    snapshots: rx.Field[list[list[str]]] = rx.field(default_factory=list)
    families: rx.Field[list[list[str]]] = rx.field(default_factory=list)
    family: rx.Field[str] = rx.field(ANY)
    model: rx.Field[str] = rx.field("")
    harness: rx.Field[str] = rx.field("")
    reasoning: rx.Field[str] = rx.field("")
    single: rx.Field[bool] = rx.field(False)
    has_filters: rx.Field[bool] = rx.field(False)
    items: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)
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
                page = board.board_page(session, self.selected or None, self._filters(), cursor, 25)
        except (board.InvalidBoardCursorError, snapshots.SnapshotNotFoundError):
            self.error = "That snapshot or page does not exist. Showing the latest snapshot."
            self.selected = ""
            if cursor is None:
                self._load(None)
            return
        rows = [_entry_dict(entry) for entry in page.items]
        self.items = [*self.items, *rows] if cursor else rows
        self.next_cursor = page.next_cursor or ""
        if page.snapshot is None:
            self.snapshot_id = ""
            return
        self.snapshot_id = page.snapshot.id
        self.published = human_date(page.snapshot.published_at)
        self.superseded = page.snapshot.superseded_by is not None
        self.sha256 = page.snapshot.sha256
        self.row_count = str(page.snapshot.row_count)
        self.policy = policy_words(page.snapshot.policy)

    @rx.event
    def on_load(self) -> None:
        self.load_viewer()
        params = self.router.url.query_parameters
        self.selected = str(params.get("snapshot", ""))[:16]
        self.family = str(params.get("family") or ANY)[:64]
        for key in ("model", "harness", "reasoning"):
            setattr(self, key, str(params.get(key, ""))[:200])
        self.single = str(params.get("single", "")) == "1"
        self.has_filters = bool(self._filters().to_query())
        self.error = self.notice = ""
        with app_context().session() as session:
            self.families = [[slug, name] for slug, name in catalog.family_options(session)]
            self.snapshots = [
                [s.id, human_date(s.published_at) + ("" if s.superseded_by else " (latest)")]
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
        query.update(changes)
        query = {k: v for k, v in query.items() if v and v != ANY}
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
        return rx.redirect("/leaderboard" + ("?" + urlencode(query) if query else ""))

    @rx.event
    def select_snapshot(self, snapshot_id: str) -> EventSpec:
        return rx.redirect(self._href(snapshot=snapshot_id))

    @rx.event
    def set_family(self, value: str) -> None:
        self.family = value

    @rx.event
    def clear_filters(self) -> EventSpec:
        return rx.redirect("/leaderboard" + (f"?snapshot={self.selected}" if self.selected else ""))

    @rx.event
    def request_snapshot(self) -> None:
        user = self._require_user()
        try:
            with app_context().session() as session:
                job = jobs.request_owner_snapshot(session, user)
        except ServiceError as error:
            self.error = error.message
            return
        self.error = ""
        self.notice = (
            "A new snapshot is being built. Refresh in a moment to see it."
            if job
            else "A snapshot is already being built. Refresh in a moment."
        )
