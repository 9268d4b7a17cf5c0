"""list sorts: a contributor's, a family's and a model's page in each keyed order

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-02 12:45:00

Those pages offer the feed's sort menu. Without these, "most reviewed" or "highest reviewed
score" on one of them reads every Test of that contributor, family or model and sorts them
(or walks the feed's order index skipping everyone else's); with them, a page is a range
walk in its order, as newest already is.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Written out rather than imported from the model: a migration describes the schema as it was.
PAGES = {"contributor": "contributor_id", "family": "family_id", "model": "catalog_model_id"}
ORDERS = {"reviews": "review_count", "score": "review_score"}


def upgrade() -> None:
    for page, column in PAGES.items():
        for order, key in ORDERS.items():
            op.create_index(
                f"ix_test_{page}_{order}_feed",
                "test",
                [column, "state", key, "published_at", "id"],
                unique=False,
            )


def downgrade() -> None:
    for page in PAGES:
        for order in ORDERS:
            op.drop_index(f"ix_test_{page}_{order}_feed", table_name="test")
