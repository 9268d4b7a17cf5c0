"""one open dispute per review, kept by the database

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30 12:00:00

``uq_dispute_open_review`` is a partial unique index on ``dispute.review_id`` over the rows
whose state is ``open`` (the only undecided ``CaseState``; resolved and dismissed disputes
may pile up). Until now only a row lock on the Test kept the rule, and SQLite ignores
``FOR UPDATE``, so old data may hold several open disputes on one review.

The upgrade refuses to guess about those. ``dispute`` is not one of the append-only tables,
so an UPDATE could close the extras, but closing a dispute is a moderation decision: it
needs a moderator, a written reason, a ``moderation_decision`` row and an audit event, and
the contributor is told the outcome. A migration has no moderator to name and no reason to
give, and picking which dispute "wins" would silently discard a contributor's words. So it
stops before changing anything, naming every duplicate; moderators decide the extras from
the moderation queue (which lists every open dispute), and the upgrade is run again.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEX = "uq_dispute_open_review"
IS_OPEN = "state = 'open'"
DUPLICATE_OPEN_DISPUTES = sa.text(
    "SELECT review_id, id FROM dispute WHERE state = 'open' AND review_id IN ("
    "SELECT review_id FROM dispute WHERE state = 'open' GROUP BY review_id HAVING count(*) > 1"
    ") ORDER BY review_id, created_at, id"
)


def _refuse_duplicate_open_disputes() -> None:
    rows = op.get_bind().execute(DUPLICATE_OPEN_DISPUTES).all()
    if not rows:
        return
    by_review: dict[str, list[str]] = {}
    for review_id, dispute_id in rows:
        by_review.setdefault(review_id, []).append(dispute_id)
    listing = "; ".join(f"review {review}: {', '.join(ids)}" for review, ids in by_review.items())
    raise RuntimeError(
        f"Cannot add {INDEX}: {len(by_review)} review(s) have more than one open dispute "
        f"(oldest first) - {listing}. Decide all but one of each in the moderation queue, "
        "then run the upgrade again. Nothing was changed."
    )


def upgrade() -> None:
    _refuse_duplicate_open_disputes()
    with op.batch_alter_table("dispute", schema=None) as batch_op:
        batch_op.create_index(
            INDEX,
            ["review_id"],
            unique=True,
            sqlite_where=sa.text(IS_OPEN),
            postgresql_where=sa.text(IS_OPEN),
        )


def downgrade() -> None:
    with op.batch_alter_table("dispute", schema=None) as batch_op:
        batch_op.drop_index(INDEX)
