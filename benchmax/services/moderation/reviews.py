"""Human and admin reviews: append-only, corrected only by a new review that points back.

A review is *current* until another review corrects it; a Test with at least one current
review is Reviewed. Corrections form a single chain (only the latest entry may be
corrected), so the history always reads as one line per original review. AI reviews will
share this table and these rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, select

from benchmax.models import (
    AuditAction,
    Review,
    ReviewerKind,
    ReviewState,
    Role,
    Test,
    TestState,
    User,
    audit,
)
from benchmax.models._base import as_utc, is_public_id
from benchmax.services.dates import JsonReady
from benchmax.services.errors import Conflict, Forbidden, Invalid, NotFound
from benchmax.services.moderation.policy import clean_text, is_admin, require_active

REASONING_MIN, REASONING_MAX = 20, 5000
SCORE_MIN, SCORE_MAX = 0, 100


@dataclass(frozen=True)
class ReviewEntry(JsonReady):
    id: str
    test_id: str
    reviewer_kind: str
    reviewer_handle: str | None
    score: int
    reasoning: str
    corrects_review_id: str | None
    superseded: bool
    created_at: datetime
    judge_snapshot_id: str | None = None


def public_test(session: Session, test_id: str, *, lock: bool = False) -> Test:
    """The public Test with this id; anything else is the same 404 the pages give.

    ``lock`` holds the row until commit (PostgreSQL) so two checks-then-inserts on one Test,
    such as "one open dispute per review", cannot interleave.
    """
    test = session.get(Test, test_id, with_for_update=lock) if is_public_id(test_id) else None
    if test is None or test.state != TestState.PUBLIC:
        raise NotFound("test_not_found", "No public Test has this id.")
    return test


def _corrected_ids(session: Session, test_id: str) -> set[str]:
    rows = session.exec(
        select(Review.corrects_review_id).where(
            Review.test_id == test_id, col(Review.corrects_review_id).is_not(None)
        )
    ).all()
    return {row for row in rows if row}


def review_history(session: Session, test_id: str) -> list[ReviewEntry]:
    """Every review of a public Test, oldest first, with the superseded ones marked."""
    return reviews_of(session, public_test(session, test_id).id)


def reviews_of(session: Session, test_id: str) -> list[ReviewEntry]:
    """The append-only review history of any Test; callers decide who may see it."""
    superseded = _corrected_ids(session, test_id)
    rows = session.exec(
        select(Review, User.handle)
        .outerjoin(User, col(User.id) == Review.reviewer_id)
        .where(Review.test_id == test_id)
        .order_by(col(Review.created_at), col(Review.id))
    ).all()
    return [
        ReviewEntry(
            id=review.id,
            test_id=review.test_id,
            reviewer_kind=str(review.reviewer_kind),
            reviewer_handle=handle,
            score=review.score,
            reasoning=review.reasoning,
            corrects_review_id=review.corrects_review_id,
            superseded=review.id in superseded,
            created_at=as_utc(review.created_at),
            judge_snapshot_id=review.judge_snapshot_id,
        )
        for review, handle in rows
    ]


def refresh_review_state(session: Session, test: Test) -> None:
    """Reviewed when a current review exists; a Ranked Test stays Ranked while it does.

    Also the count and mean score of the current reviews, which the feed sorts by."""
    superseded = _corrected_ids(session, test.id)
    rows = session.exec(select(Review.id, Review.score).where(Review.test_id == test.id)).all()
    scores = [score for review_id, score in rows if review_id not in superseded]
    test.review_count = len(scores)
    test.review_score = mean_score(scores)
    if scores:
        if test.review_state == ReviewState.AWAITING:
            test.review_state = ReviewState.REVIEWED
    else:
        test.review_state = ReviewState.AWAITING
    session.add(test)


def mean_score(scores: list[int]) -> int | None:
    """The mean rounded half up in integers (as migration 0015 backfills it), None if none."""
    if not scores:
        return None
    return (2 * sum(scores) + len(scores)) // (2 * len(scores))


def parse_score(raw: object) -> int:
    """A whole number from 0 to 100, given as a number or as digits typed into a form."""
    if isinstance(raw, str) and raw.strip().isdigit():
        raw = int(raw.strip())
    if not isinstance(raw, int) or isinstance(raw, bool) or not SCORE_MIN <= raw <= SCORE_MAX:
        raise Invalid(
            "invalid_score",
            f"The score is a whole number from {SCORE_MIN} to {SCORE_MAX}.",
            "score",
        )
    return raw


def clean_reasoning(raw: object) -> str:
    return clean_text(
        raw,
        field="reasoning",
        noun="The reasoning",
        minimum=REASONING_MIN,
        maximum=REASONING_MAX,
        label="review reasoning",
    )


def reviewer_kind(user: User) -> ReviewerKind | None:
    """The kind a user's reviews carry, or None when the user may not review at all."""
    if is_admin(user):
        return ReviewerKind.ADMIN
    return ReviewerKind.HUMAN if user.role == Role.REVIEWER else None


def latest_in_chain(session: Session, review: Review) -> Review:
    """The newest correction of ``review`` (itself when nothing corrects it)."""
    while True:
        newer = session.exec(select(Review).where(Review.corrects_review_id == review.id)).first()
        if newer is None:
            return review
        review = newer


def append_review(
    session: Session, test: Test, user: User, score: int, reasoning: str, corrects: Review | None
) -> Review:
    """Insert a review whose inputs were already checked, and bring the Test's state along."""
    kind = reviewer_kind(user)
    assert kind is not None  # callers check the role first
    review = Review(
        test_id=test.id,
        reviewer_id=user.id,
        reviewer_kind=kind,
        score=score,
        reasoning=reasoning,
        corrects_review_id=corrects.id if corrects else None,
    )
    session.add(review)
    audit(
        session,
        AuditAction.REVIEW_CORRECTED if corrects else AuditAction.REVIEW_ADDED,
        ("review", review.id),
        actor_id=user.id,
        detail={"test_id": test.id, **({"corrects_review_id": corrects.id} if corrects else {})},
    )
    session.flush()
    refresh_review_state(session, test)
    session.flush()
    return review


def _correctable(session: Session, test: Test, user: User, review_id: object) -> Review:
    review = session.get(Review, review_id) if isinstance(review_id, str) else None
    if review is None or review.test_id != test.id:
        raise NotFound("review_not_found", "That review is not on this Test.", "corrects_review_id")
    if review.reviewer_id != user.id and not is_admin(user):
        raise Forbidden("not_allowed", "Only the review's author or a moderator can correct it.")
    if latest_in_chain(session, review).id != review.id:
        raise Conflict(
            "already_corrected",
            "That review has already been corrected; correct the latest version instead.",
            "corrects_review_id",
        )
    return review


def add_review(
    session: Session,
    actor: User | None,
    test_id: str,
    score: object,
    reasoning: object,
    corrects_review_id: str | None = None,
) -> Review:
    """A new review, or a correction of one, by an approved reviewer, moderator or owner."""
    user = require_active(actor, "review Tests")
    if reviewer_kind(user) is None:
        raise Forbidden(
            "not_allowed", "Only approved reviewers, moderators and owners can review Tests."
        )
    test = public_test(session, test_id)
    if test.contributor_id == user.id:
        raise Forbidden("own_test", "You cannot review your own Test.")
    clean_score = parse_score(score)
    clean = clean_reasoning(reasoning)
    corrects = _correctable(session, test, user, corrects_review_id) if corrects_review_id else None
    return append_review(session, test, user, clean_score, clean, corrects)
