"""submission pipeline additions

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 10:00:00

An Idempotency-Key is unique per contributor (a retried API POST finds the first Test), and
``api_token_use`` records submission attempts per token so the rate limit holds across
processes.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "api_token_use",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_id", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["token_id"], ["api_token.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("api_token_use", schema=None) as batch_op:
        batch_op.create_index("ix_api_token_use_window", ["token_id", "created_at"], unique=False)
    with op.batch_alter_table("test", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "idempotency_fingerprint",
                sqlmodel.sql.sqltypes.AutoString(length=64),
                nullable=False,
                server_default="",
            )
        )
        batch_op.create_unique_constraint(
            "uq_test_idempotency", ["contributor_id", "idempotency_key"]
        )


def downgrade() -> None:
    with op.batch_alter_table("test", schema=None) as batch_op:
        batch_op.drop_constraint("uq_test_idempotency", type_="unique")
        batch_op.drop_column("idempotency_fingerprint")
    with op.batch_alter_table("api_token_use", schema=None) as batch_op:
        batch_op.drop_index("ix_api_token_use_window")
    op.drop_table("api_token_use")
