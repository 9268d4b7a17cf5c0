"""worker heartbeats: a dead worker's running jobs are released as soon as it falls silent

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-02 09:50:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "worker_beat",
        sa.Column("worker_id", sqlmodel.sql.sqltypes.AutoString(length=90), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("worker_id"),
    )


def downgrade() -> None:
    op.drop_table("worker_beat")
