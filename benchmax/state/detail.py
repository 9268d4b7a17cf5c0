"""``/tests/[test_id]``: one Test, or the not-found view for anything the viewer may not see.

One load fills the whole page: the Test itself and what its actions panel may offer this
viewer (``TestActionsState`` is a substate and reads these vars), so the Test is read once
per visit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

import reflex as rx

from benchmax.context import app_context
from benchmax.models import User
from benchmax.presentation.colours import review_color
from benchmax.presentation.formatting import attempts_text, size_text
from benchmax.services import detail_view
from benchmax.services.dates import Stamp, stamp
from benchmax.services.evidence_urls import evidence_url
from benchmax.services.judge.card import AiReviewSummary
from benchmax.services.moderation import disputes, reviews
from benchmax.services.moderation.removal_notice import removal_notice
from benchmax.services.moderation.reviews import ReviewEntry
from benchmax.services.submissions import status_label
from benchmax.state.found import FoundVars
from benchmax.state.removal_banner import RemovalBanner
from benchmax.state.session import SessionState

_REVIEWER_KINDS = {"ai": "AI judge", "admin": "Admin", "human": "Approved reviewer"}


@dataclass(frozen=True)
class TestPanel:
    """The Test as the page shows it, every value ready to render; empty when not found."""

    __test__ = False  # not a pytest class

    id: str = ""
    title: str = ""
    prompt: str = ""
    model: str = ""
    catalog: str = ""
    harness: str = ""
    reasoning: str = ""
    attempts: str = ""
    settings: str = ""
    notes: str = ""
    notes_html: str = ""
    handle: str = ""
    contributor: str = ""
    published: Stamp = field(default_factory=Stamp)
    status: str = ""
    status_color: str = ""
    state: str = ""
    failure: str = ""
    guidance: str = ""  # the owner's next step on a non-public Test

    @classmethod
    def of(cls, view: detail_view.TestView, now: datetime) -> TestPanel:
        review, state = str(view.review_state), str(view.state)
        return cls(
            id=view.id,
            title=view.title,
            prompt=view.prompt,
            model=f"{view.model_label} {view.model_version_label}".strip(),
            catalog=view.catalog_model.name if view.catalog_model else "",
            harness=view.harness_label,
            reasoning=view.reasoning_label,
            attempts=attempts_text(view.attempts),
            settings=view.settings_text,
            notes=view.notes,
            notes_html=view.notes_html if view.notes.strip() else "",
            handle=view.contributor_handle,
            contributor=view.contributor_display_name or view.contributor_handle,
            published=stamp(view.published_at if state == "public" else None, now),
            status=status_label(state, review),
            status_color=review_color(review) if state == "public" else "red",
            state=state,
            failure=view.failure_reason,
            guidance=detail_view.owner_guidance(state),
        )


_EVIDENCE_ORDER = {"image": 0, "video": 1, "text": 2, "source": 3}
_FILE_STATES = {
    "uploading": "Uploading",
    "quarantined": "Being checked",
    "blocked": "Blocked",
    "removed": "Removed",
}


@dataclass(frozen=True)
class EvidenceRow:
    """One file. ``url`` points at the user-content origin, and is empty whenever that origin
    would refuse the file (so no link ever 404s); ``chip`` then says why, to its owner."""

    id: str
    kind: str
    name: str
    size: str
    url: str
    state: str
    chip: str  # "Blocked: named .png but the contents aren't an image"; empty when served

    @classmethod
    def of(
        cls, item: detail_view.EvidenceItem, origin: str, test_state: str, source_public: bool
    ) -> EvidenceRow:
        kind = str(item.kind or "")
        state = str(item.state)
        private_source = kind == "source" and not source_public
        public = test_state == "public"
        served = public and state == "approved" and not private_source
        return cls(
            id=item.id,
            kind=kind,
            name=item.safe_name,
            size=size_text(item.size_bytes),
            url=evidence_url(origin, item.id, item.safe_name) if served else "",
            state=state,
            chip=_chip(state, item.block_reason, private_source, test_state),
        )


def _chip(state: str, reason: str, private_source: bool, test_state: str) -> str:
    if state != "approved":
        label = _FILE_STATES.get(state, state.capitalize())
        return f"{label}: {reason}" if reason else label
    if private_source:
        return "Source: private ZIP (not downloadable)"
    if test_state == "public":
        return ""
    if test_state == "removed":
        return "Not served: the Test was removed"
    return "Served once the Test is public"


def ordered_evidence(rows: list[EvidenceRow]) -> list[EvidenceRow]:
    """Images first, then video, text and source; upload order within a kind."""
    return sorted(rows, key=lambda row: _EVIDENCE_ORDER.get(row.kind, 9))


@dataclass(frozen=True)
class ReviewRow:
    """One review of the history, with what this viewer may do about it."""

    id: str
    score: str
    reasoning: str
    kind: str
    corrects: str
    superseded: bool
    created: Stamp
    disputed: bool  # an open dispute is waiting on it
    mine: bool  # the viewer wrote it
    judge_href: str  # an AI review's judge card; empty for people's reviews
    judge_samples: str  # "median 72 of 3 samples, spread 5"

    @classmethod
    def of(
        cls,
        review: ReviewEntry,
        viewer: User | None,
        disputed: set[str],
        ai: dict[str, AiReviewSummary],
        now: datetime,
    ) -> ReviewRow:
        kind = str(review.reviewer_kind)
        summary = ai.get(review.id)
        return cls(
            id=review.id,
            score=str(review.score),
            reasoning=review.reasoning,
            kind=_REVIEWER_KINDS.get(kind, kind),
            corrects=review.corrects_review_id or "",
            superseded=review.superseded,
            created=stamp(review.created_at, now),
            disputed=review.id in disputed,
            mine=bool(viewer and review.reviewer_handle == viewer.handle),
            judge_href=f"/judges/{review.judge_snapshot_id}" if review.judge_snapshot_id else "",
            judge_samples=(
                f"median {summary.median} of {summary.samples} samples, spread {summary.spread}"
                if summary
                else ""
            ),
        )


class TestDetailState(FoundVars, SessionState):
    test: rx.Field[TestPanel] = rx.field(default_factory=TestPanel)
    tab_title: rx.Field[str] = rx.field("Test · BenchMax")
    output_html: rx.Field[str] = rx.field("")
    evidence: rx.Field[list[EvidenceRow]] = rx.field(default_factory=list)
    reviews: rx.Field[list[ReviewRow]] = rx.field(default_factory=list)
    is_owner_view: rx.Field[bool] = rx.field(False)
    has_source: rx.Field[bool] = rx.field(False)
    # For the actions panel: offered only on a public Test, and only what this viewer may do
    # (the services check every submit again).
    available: rx.Field[bool] = rx.field(False)
    can_review: rx.Field[bool] = rx.field(False)
    is_contributor: rx.Field[bool] = rx.field(False)
    # Moderators and owners on a removed Test: that it is not public, and why.
    removal: rx.Field[RemovalBanner] = rx.field(default_factory=RemovalBanner)

    @rx.event
    def on_load(self) -> None:
        user = self._require_user()
        test_id = self._path_name(None)
        with app_context().session() as session:
            notice = removal_notice(session, test_id, user)
            viewer_id = user.id if user else None
            view = detail_view.get_test_view(session, test_id, viewer_id, staff=bool(notice))
            public = view is not None and str(view.state) == "public"
            disputed = (
                disputes.reviews_with_open_disputes(session, [r.id for r in view.reviews])
                if view is not None and public
                else set()
            )
        self.loaded = True
        self.found = view is not None
        self.removal = RemovalBanner.of(notice, datetime.now(UTC))
        self.available = public
        if view is None:
            self.test, self.evidence, self.reviews, self.output_html = TestPanel(), [], [], ""
            self.can_review = self.is_contributor = False
            self.tab_title = "Not found · BenchMax"
            return
        origin = app_context().settings.usercontent_origin
        now = datetime.now(UTC)
        self.test = TestPanel.of(view, now)
        self.tab_title = f"{view.title or 'Untitled Test'} · BenchMax"
        self.output_html = view.output_html
        source_public = view.source_visibility == "public"
        self.evidence = ordered_evidence(
            [EvidenceRow.of(item, origin, str(view.state), source_public) for item in view.evidence]
        )
        # One row per review: the history is append-only, and each entry is shown once with
        # whatever this viewer may do about it.
        self.reviews = [
            ReviewRow.of(review, user, disputed, view.ai_reviews, now) for review in view.reviews
        ]
        self.is_owner_view = not public and view.is_owner
        self.has_source = any(item.kind == "source" for item in view.evidence)
        active = bool(user and user.can_write)
        self.is_contributor = public and view.is_owner
        self.can_review = bool(
            public
            and user
            and active
            and not view.is_owner
            and reviews.reviewer_kind(user) is not None
        )
