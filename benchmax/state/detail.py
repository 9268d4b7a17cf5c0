"""``/tests/[test_id]``: one Test, or the not-found view for anything the viewer may not see.

One load fills the whole page: the Test itself and what its actions panel may offer this
viewer (``TestActionsState`` is a substate and reads these vars), so the Test is read once
per visit.
"""

from __future__ import annotations

from typing import Any

import reflex as rx

from benchmax import runtime
from benchmax.components.badges import REVIEW_COLORS
from benchmax.models import User
from benchmax.services import detail_view
from benchmax.services.dates import human_date
from benchmax.services.evidence_urls import evidence_url
from benchmax.services.moderation import disputes, reviews
from benchmax.services.submissions import status_label
from benchmax.state.session import SessionState
from benchmax.state.views import attempts_text, size_text


def _evidence_dict(item: Any, origin: str) -> dict[str, str]:
    return {
        "id": item.id,
        "kind": str(item.kind or ""),
        "name": item.safe_name,
        "size": size_text(item.size_bytes),
        "url": evidence_url(origin, item.id, item.safe_name),
        "state": str(item.state),
    }


def _review_dict(review: Any, viewer: User | None, disputed: set[str]) -> dict[str, str]:
    kind = str(review.reviewer_kind)
    return {
        "id": review.id,
        "score": str(review.score),
        "reasoning": review.reasoning,
        "kind": {"ai": "AI judge", "admin": "Admin", "human": "Approved reviewer"}.get(kind, kind),
        "corrects": review.corrects_review_id or "",
        "superseded": "yes" if review.superseded else "",
        "current": "" if review.superseded else "yes",
        "created": human_date(review.created_at),
        "disputed": "yes" if review.id in disputed else "",
        "mine": "yes" if viewer and review.reviewer_handle == viewer.handle else "",
    }


class TestDetailState(SessionState):
    found: rx.Field[bool] = rx.field(False)
    loaded: rx.Field[bool] = rx.field(False)
    test: rx.Field[dict[str, str]] = rx.field(default_factory=dict)
    output_html: rx.Field[str] = rx.field("")
    evidence: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)
    reviews: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)
    is_owner_view: rx.Field[bool] = rx.field(False)
    has_source: rx.Field[bool] = rx.field(False)
    # For the actions panel: offered only on a public Test, and only what this viewer may do
    # (the services check every submit again).
    available: rx.Field[bool] = rx.field(False)
    can_review: rx.Field[bool] = rx.field(False)
    is_contributor: rx.Field[bool] = rx.field(False)

    @rx.event
    def on_load(self) -> None:
        user = self._require_user()
        test_id = str(self.router.url.path).rstrip("/").rsplit("/", 1)[-1]
        with runtime.db_session() as session:
            view = detail_view.get_test_view(session, test_id, user.id if user else None)
            public = view is not None and str(view.state) == "public"
            disputed = (
                disputes.reviews_with_open_disputes(session, [r.id for r in view.reviews])
                if view is not None and public
                else set()
            )
        self.loaded = True
        self.found = view is not None
        self.available = public
        if view is None:
            self.test, self.evidence, self.reviews, self.output_html = {}, [], [], ""
            self.can_review = self.is_contributor = False
            return
        origin = runtime.settings().usercontent_origin
        review = str(view.review_state)
        state = str(view.state)
        self.test = {
            "id": view.id,
            "title": view.title,
            "prompt": view.prompt,
            "model": f"{view.model_label} {view.model_version_label}".strip(),
            "catalog": view.catalog_model.name if view.catalog_model else "",
            "harness": view.harness_label,
            "reasoning": view.reasoning_label,
            "attempts": attempts_text(view.attempts),
            "settings": view.settings_text,
            "notes": view.notes,
            "handle": view.contributor_handle,
            "contributor": view.contributor_display_name or view.contributor_handle,
            "published": human_date(view.published_at),
            "status": status_label(state, review),
            "status_color": REVIEW_COLORS.get(review, "gray") if state == "public" else "red",
            "state": state,
            "failure": view.failure_reason,
        }
        self.output_html = view.output_html
        self.evidence = [_evidence_dict(item, origin) for item in view.evidence]
        self.reviews = [_review_dict(r, user, disputed) for r in view.reviews]
        self.is_owner_view = not public
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
