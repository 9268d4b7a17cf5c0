"""What ``/tests/[test_id]`` shows: the Test, its evidence files and its reviews."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from benchmax.models import User
from benchmax.presentation.colours import review_color
from benchmax.presentation.formatting import attempts_text, size_text
from benchmax.services import detail_view
from benchmax.services.dates import Stamp, stamp
from benchmax.services.evidence_urls import evidence_url
from benchmax.services.judge.card import AiReviewSummary
from benchmax.services.moderation.reviews import ReviewEntry
from benchmax.services.submissions import status_label

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
    gateway_call_id: str = ""
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
            gateway_call_id=view.gateway_call_id,
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
