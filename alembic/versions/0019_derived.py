"""derived text redactions: a daily count per source of credentials removed from derived text

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-02 08:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "redaction_day",
        sa.Column("day", sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
        sa.Column("source", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("day", "source"),
    )


def downgrade() -> None:
    op.drop_table("redaction_day")
