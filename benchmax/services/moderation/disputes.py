"""Disputes: a Test's contributor contests a current review; a moderator upholds the review
or overturns it with a correction."""

from __future__ import annotations

from typing import Literal

from sqlmodel import Session, col, select

from benchmax.models import (
    CaseState,
    Dispute,
    ModerationDecision,
    Review,
    TestState,
    User,
)
from benchmax.models._base import is_public_id
from benchmax.services.errors import Conflict, Forbidden, NotFound
from benchmax.services.moderation.cases import open_case
from benchmax.services.moderation.filing import file_case
from benchmax.services.moderation.policy import clean_reason, require_active, require_admin
from benchmax.services.moderation.records import settle_case
from benchmax.services.moderation.reviews import (
    REASONING_MIN,
    append_review,
    latest_in_chain,
    parse_score,
    public_test,
)


def open_dispute_for(session: Session, review_id: str) -> Dispute | None:
    return session.exec(
        select(Dispute).where(Dispute.review_id == review_id, Dispute.state == CaseState.OPEN)
    ).first()


def reviews_with_open_disputes(session: Session, review_ids: list[str]) -> set[str]:
    """Which of ``review_ids`` have an open dispute, in one query (for the Test page)."""
    if not review_ids:
        return set()
    return set(
        session.exec(
            select(Dispute.review_id).where(
                col(Dispute.review_id).in_(review_ids), Dispute.state == CaseState.OPEN
            )
        )
    )


def _refuse_if_open(session: Session, review_id: str) -> None:
    if open_dispute_for(session, review_id) is not None:
        raise Conflict(
            "dispute_open", "This review already has an open dispute; moderators will decide."
        )


def open_dispute(
    session: Session, actor: User | None, review_id: str, reason: object, *, per_hour: int
) -> Dispute:
    """Contest a review of one's own Test: one open dispute per review, ``per_hour`` an hour."""
    user = require_active(actor, "dispute reviews")
    review = session.get(Review, review_id) if is_public_id(review_id) else None
    if review is None:
        raise NotFound("review_not_found", "No review has this id.")
    # Locked (PostgreSQL) so a second quick submission waits here and then gets the check's
    # friendly answer; the unique index below is what guarantees the rule.
    test = public_test(session, review.test_id, lock=True)
    if test.contributor_id != user.id:
        raise Forbidden("not_allowed", "Only the Test's contributor can dispute its reviews.")
    clean = clean_reason(reason, label="dispute reason")
    if latest_in_chain(session, review).id != review.id:
        raise Conflict(
            "already_corrected",
            "This review has been corrected; dispute the latest version instead.",
        )
    dispute = Dispute(review_id=review.id, test_id=test.id, contributor_id=user.id, reason=clean)
    detail = {"review_id": review.id, "test_id": test.id}
    file_case(
        session,
        dispute,
        user,
        detail,
        lambda: _refuse_if_open(session, review.id),
        per_hour=per_hour,
    )
    return dispute


def decide_dispute(
    session: Session,
    actor: User | None,
    dispute_id: str,
    outcome: Literal["uphold", "overturn"],
    reason: str,
    score: object = None,
) -> ModerationDecision:
    """Uphold the disputed review (it stands) or overturn it: a correction by the moderator,
    with ``score`` and the reason as its reasoning, is appended to the review's history."""
    admin = require_admin(actor, "decide disputes")
    dispute, test = open_case(session, admin, Dispute, dispute_id)
    review = session.get(Review, dispute.review_id)
    assert review is not None  # a foreign key guarantees it
    if review.reviewer_id == admin.id:
        raise Forbidden("own_review", "You wrote this review; another moderator must decide.")
    if outcome == "uphold":
        clean = clean_reason(reason)
        closed = (CaseState.DISMISSED, "review_upheld")
    else:
        noun = "The reason, which becomes the correcting review,"
        clean = clean_reason(reason, noun=noun, minimum=REASONING_MIN)
        clean_score = parse_score(score)
        if test.state != TestState.PUBLIC:
            raise Conflict("not_public", "Only a public Test's reviews can be corrected.")
        append_review(session, test, admin, clean_score, clean, latest_in_chain(session, review))
        closed = (CaseState.RESOLVED, "review_overturned")
    return settle_case(session, admin, dispute, outcome, clean, closed)
