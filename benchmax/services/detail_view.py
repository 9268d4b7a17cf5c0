"""What the Test detail page and ``GET /api/v1/tests/{id}`` show, and who may see it.

Visibility is decided here, once: a non-public Test, a malformed id and an unknown id all read
as None (404, no detail) unless the viewer is the contributor, who sees their private Test
with its state and failure reason so they can fix or retry it. Evidence that has not been
approved, and a source ZIP kept private, are listed to the contributor only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, select

from benchmax.models import (
    CatalogModel,
    EvidenceFile,
    Harness,
    ModelFamily,
    ModelVersion,
    Test,
    TestState,
    User,
)
from benchmax.models._base import is_public_id
from benchmax.services.dates import JsonReady
from benchmax.services.dto import from_row
from benchmax.services.evidence_visibility import readers_see
from benchmax.services.judge.card import AiReviewSummary, ai_review_summaries
from benchmax.services.markdown import render_markdown
from benchmax.services.moderation.reviews import ReviewEntry, reviews_of
from benchmax.services.summaries import group_url


@dataclass(frozen=True)
class CatalogRef:
    slug: str
    name: str


@dataclass(frozen=True)
class EvidenceItem:
    id: str
    kind: str
    safe_name: str
    size_bytes: int
    content_type: str
    state: str
    width: int | None
    height: int | None
    block_reason: str


@dataclass(frozen=True)
class TestView(JsonReady):
    """Everything the detail screen shows. ``attempts`` None reads "attempts not declared"."""

    __test__ = False  # not a pytest class

    id: str
    title: str
    prompt: str
    # The comparison group of every public Test of this prompt (``group_url`` is its page).
    prompt_key: str
    group_url: str
    model_label: str
    model_version_label: str
    harness_label: str
    reasoning_label: str
    family: CatalogRef | None
    catalog_model: CatalogRef | None
    model_version_name: str | None
    harness: CatalogRef | None
    settings_text: str
    attempts: int | None
    # A reference the contributor declared (a panel import's call id); text, never a link.
    gateway_call_id: str
    notes: str
    output_text: str
    output_html: str
    notes_html: str
    state: str
    review_state: str
    failure_code: str
    failure_reason: str
    is_owner: bool
    is_sample: bool
    source_visibility: str
    contributor_handle: str
    contributor_display_name: str
    evidence: list[EvidenceItem]
    reviews: list[ReviewEntry]
    # The samples behind each AI review (median, spread, judge card), keyed by review id.
    ai_reviews: dict[str, AiReviewSummary]
    created_at: datetime
    updated_at: datetime
    submitted_at: datetime | None
    published_at: datetime | None


def _evidence(session: Session, test: Test, is_owner: bool) -> list[EvidenceItem]:
    files = session.exec(
        select(EvidenceFile)
        .where(EvidenceFile.test_id == test.id)
        .order_by(col(EvidenceFile.position), col(EvidenceFile.created_at), col(EvidenceFile.id))
    ).all()
    return [
        from_row(EvidenceItem, file, kind=str(file.kind or ""))
        for file in files
        if is_owner or readers_see(file, test)
    ]


# What the contributor reads on their own non-public Test: its state in plain words and the
# next step. Never "public", "Published" or "awaiting review": none of that is true yet.
_OWNER_GUIDANCE = {
    TestState.DRAFT: "This is a draft: nobody else can see it. Finish it in Submit a Test.",
    TestState.PROCESSING: (
        "Only you can see this Test while its safety checks run; it becomes public by itself "
        "when they pass. Nothing to do."
    ),
    TestState.NEEDS_ATTENTION: (
        "Only you can see this Test: something needs fixing before it can be public. "
        "Fix it from My Tests."
    ),
    TestState.FAILED: (
        "Only you can see this Test: processing failed. Nothing you entered is lost; "
        "retry from My Tests."
    ),
    TestState.REMOVED: (
        "This Test was removed by moderation and is no longer public; only you can see it. "
        "Nothing you entered was deleted. My Tests shows what you can do next."
    ),
}


def owner_guidance(state: str) -> str:
    """What the contributor should know and do about a Test in ``state`` (empty when public)."""
    return _OWNER_GUIDANCE.get(TestState(state), "") if state != TestState.PUBLIC else ""


def _ref(row: ModelFamily | CatalogModel | Harness | None) -> CatalogRef | None:
    return CatalogRef(row.slug, row.name) if row else None


def visible_test(session: Session, test_id: str, viewer_id: str | None, staff: bool) -> Test | None:
    """The Test ``/tests/{test_id}`` shows this viewer: public, their own, or (``staff``, a
    moderator) removed; None for anything else."""
    if not is_public_id(test_id):
        return None
    test = session.get(Test, test_id)
    if test is None:
        return None
    allowed = test.contributor_id == viewer_id or (staff and test.state == TestState.REMOVED)
    if test.state != TestState.PUBLIC and not allowed:
        return None
    return test


def get_test_view(
    session: Session, test_id: str, viewer_id: str | None, *, staff: bool = False
) -> TestView | None:
    """The detail of one Test as ``viewer_id`` (a user id, None when signed out) may see it.
    ``staff``: the caller checked that the viewer moderates (``removal_notice``), who may
    then see a removed Test too, as a stranger would have seen it while it was public."""
    test = visible_test(session, test_id, viewer_id, staff)
    if test is None:
        return None
    contributor = session.get(User, test.contributor_id)
    version = session.get(ModelVersion, test.model_version_id) if test.model_version_id else None
    is_owner = viewer_id is not None and viewer_id == test.contributor_id
    reviews = reviews_of(session, test.id)
    return from_row(
        TestView,
        test,
        title=test.display_title,
        group_url=group_url(test.prompt_key),
        family=_ref(session.get(ModelFamily, test.family_id) if test.family_id else None),
        catalog_model=_ref(
            session.get(CatalogModel, test.catalog_model_id) if test.catalog_model_id else None
        ),
        model_version_name=version.name if version else None,
        harness=_ref(session.get(Harness, test.harness_id) if test.harness_id else None),
        output_html=render_markdown(test.output_text),
        notes_html=render_markdown(test.notes),
        state=str(test.state),
        review_state=str(test.review_state),
        # Why processing failed is for the contributor alone.
        failure_code=test.failure_code if is_owner else "",
        failure_reason=test.failure_reason if is_owner else "",
        is_owner=is_owner,
        contributor_handle=contributor.handle if contributor else "",
        contributor_display_name=contributor.display_name if contributor else "",
        evidence=_evidence(session, test, is_owner),
        reviews=reviews,
        ai_reviews=ai_review_summaries(session, [(r.id, r.judge_snapshot_id) for r in reviews]),
    )
