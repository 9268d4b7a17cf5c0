"""apihttp: refused API submissions counted apart; indexes for the public reads' validators

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-02 09:00:00

``api_token_use.refused`` marks a submission the API refused, which counts against its own,
larger limit instead of the account's submissions. The three indexes make the newest stamp of
each table the public reads' cache validator depends on (``services/data_version.py``) one
index seek rather than a scan.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_INDEXES = {
    "ix_test_updated_at": ("test", "updated_at"),
    "ix_review_created_at": ("review", "created_at"),
    "ix_moderation_decision_created_at": ("moderation_decision", "created_at"),
}


def upgrade() -> None:
    op.add_column(
        "api_token_use",
        sa.Column("refused", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    for name, (table, column) in _INDEXES.items():
        op.create_index(name, table, [column])


def downgrade() -> None:
    for name, (table, _column) in _INDEXES.items():
        op.drop_index(name, table_name=table)
    with op.batch_alter_table("api_token_use") as batch:
        batch.drop_column("refused")
