"""Disputes: a Test's contributor contests a current review; moderators decide."""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from benchmax.models import AuditEvent, CaseState, Dispute, Review, User
from benchmax.models._base import is_public_id
from benchmax.services.moderation.errors import ModerationError
from benchmax.services.moderation.policy import clean_reason, require_active
from benchmax.services.moderation.rate_limits import check_hourly_limit
from benchmax.services.moderation.reviews import latest_in_chain, public_test


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
        raise ModerationError(
            "dispute_open", "This review already has an open dispute; moderators will decide.", 409
        )


def open_dispute(
    session: Session, actor: User | None, review_id: str, reason: object, *, per_hour: int
) -> Dispute:
    """Contest a review of one's own Test: one open dispute per review, ``per_hour`` an hour."""
    user = require_active(actor, "dispute reviews")
    review = session.get(Review, review_id) if is_public_id(review_id) else None
    if review is None:
        raise ModerationError("review_not_found", "No review has this id.", 404)
    # Locked (PostgreSQL) so a second quick submission waits here and then gets the check's
    # friendly answer; the unique index below is what guarantees the rule.
    test = public_test(session, review.test_id, lock=True)
    if test.contributor_id != user.id:
        raise ModerationError(
            "not_allowed", "Only the Test's contributor can dispute its reviews.", 403
        )
    clean = clean_reason(reason, label="dispute reason")
    if latest_in_chain(session, review).id != review.id:
        raise ModerationError(
            "already_corrected",
            "This review has been corrected; dispute the latest version instead.",
            409,
        )
    _refuse_if_open(session, review.id)
    check_hourly_limit(session, Dispute, user.id, per_hour, "disputes")
    dispute = Dispute(review_id=review.id, test_id=test.id, contributor_id=user.id, reason=clean)
    # A savepoint lets an insert refused by the index leave the caller's transaction usable.
    # The audit event sits inside it so the two are written or refused together: with
    # SQLite's driver a savepoint opened before any other write is the whole transaction,
    # and releasing it commits.
    try:
        with session.begin_nested():
            session.add(dispute)
            session.add(
                AuditEvent(
                    actor_id=user.id,
                    action="dispute.opened",
                    subject_type="dispute",
                    subject_id=dispute.id,
                    detail={"review_id": review.id, "test_id": test.id},
                )
            )
    except IntegrityError:
        # Lost a race (or met a path that skipped the check): answer as the check would.
        _refuse_if_open(session, review.id)
        raise
    return dispute
