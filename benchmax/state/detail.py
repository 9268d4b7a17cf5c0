"""``/tests/[test_id]``: one Test, or the not-found view for anything the viewer may not see.

One load fills the whole page: the Test itself and what its actions panel may offer this
viewer (``TestActionsState`` is a substate and reads these vars), so the Test is read once
per visit.
"""

from __future__ import annotations

from datetime import UTC, datetime

import reflex as rx

from benchmax.context import app_context
from benchmax.services import detail_view
from benchmax.services.moderation import disputes, reviews
from benchmax.services.moderation.removal_notice import removal_notice
from benchmax.state.found import FoundVars
from benchmax.state.session import SessionState
from benchmax.state.views.detail import EvidenceRow, ReviewRow, TestPanel, ordered_evidence
from benchmax.state.views.removal_banner import RemovalBanner


class TestDetailState(FoundVars, SessionState):
    test: rx.Field[TestPanel] = rx.field(default_factory=TestPanel)
    tab_title: rx.Field[str] = rx.field("Test · BenchMax")
    output_html: rx.Field[str] = rx.field("")
    evidence: rx.Field[list[EvidenceRow]] = rx.field(default_factory=list)
    reviews: rx.Field[list[ReviewRow]] = rx.field(default_factory=list)
    is_owner_view: rx.Field[bool] = rx.field(False)
    has_source: rx.Field[bool] = rx.field(False)
    # The contributor kept the source ZIP private: visitors are not given the file (it is not
    # in ``evidence``), only its automated preview.
    source_private: rx.Field[bool] = rx.field(False)
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
        self.source_private = not source_public
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
