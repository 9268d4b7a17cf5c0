"""feed sorts: each Test's current review count and score, indexed in the feed's order

Revision ID: 0015
Revises: 0011
Create Date: 2026-12-01 12:50:00

"Most reviewed" and "highest reviewed score" are keyset pages like "newest", so the keys
must be columns of ``test`` with an index in the page's order - an aggregate over ``review``
per page would read every review. ``review_count`` is the number of *current* reviews (those
no later review corrects) and ``review_score`` their mean score rounded half up, NULL when
there is none; ``refresh_review_state`` keeps both in step on every new review. This
migration backfills them once with the same rule. Plain ``ADD COLUMN`` (not a batch copy),
so SQLite keeps the table, its rowids and the full-text triggers of 0009.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SORT_INDEXES = {
    "ix_test_reviews_feed": "review_count",
    "ix_test_score_feed": "review_score",
}

_CURRENT = (
    "FROM review r WHERE r.test_id = test.id AND NOT EXISTS "
    "(SELECT 1 FROM review c WHERE c.corrects_review_id = r.id)"
)
BACKFILL = (
    f"UPDATE test SET review_count = (SELECT count(*) {_CURRENT}), "
    # Round half up in integers, the way services.moderation.reviews does it.
    f"review_score = (SELECT (2 * sum(r.score) + count(*)) / (2 * count(*)) {_CURRENT}) "
    "WHERE id IN (SELECT test_id FROM review)"
)


def upgrade() -> None:
    op.add_column(
        "test", sa.Column("review_count", sa.Integer(), nullable=False, server_default="0")
    )
    op.add_column("test", sa.Column("review_score", sa.Integer(), nullable=True))
    op.execute(BACKFILL)
    for name, column in SORT_INDEXES.items():
        op.create_index(name, "test", ["state", column, "published_at", "id"], unique=False)


def downgrade() -> None:
    for name in SORT_INDEXES:
        op.drop_index(name, table_name="test")
    # Plain DROP COLUMN (SQLite 3.35+) for the same reason as the plain ADD COLUMN.
    op.drop_column("test", "review_score")
    op.drop_column("test", "review_count")
