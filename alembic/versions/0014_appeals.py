"""appeals: a contributor asks for a removed Test back

Revision ID: 0014
Revises: 0011
Create Date: 2026-12-01 13:20:00

``appeal`` holds the contributor's written appeal against one removal decision. Like
``dispute`` it is a case with a state, not an append-only table: a moderator's answer closes
it and is recorded as a new ``moderation_decision`` row (``appeal.grant`` or
``appeal.reject``), so the removal itself is never edited. ``uq_appeal_open_test`` is a partial
unique index that keeps one open appeal per Test on both engines.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

IS_OPEN = "state = 'open'"


def upgrade() -> None:
    op.create_table(
        "appeal",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("test_id", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("contributor_id", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("removal_id", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["contributor_id"], ["user.id"]),
        sa.ForeignKeyConstraint(["removal_id"], ["moderation_decision.id"]),
        sa.ForeignKeyConstraint(["test_id"], ["test.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("appeal", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_appeal_contributor_id"), ["contributor_id"])
        batch_op.create_index(batch_op.f("ix_appeal_state"), ["state"])
        batch_op.create_index(batch_op.f("ix_appeal_test_id"), ["test_id"])
        batch_op.create_index(
            "uq_appeal_open_test",
            ["test_id"],
            unique=True,
            sqlite_where=sa.text(IS_OPEN),
            postgresql_where=sa.text(IS_OPEN),
        )


def downgrade() -> None:
    with op.batch_alter_table("appeal", schema=None) as batch_op:
        batch_op.drop_index("uq_appeal_open_test")
        batch_op.drop_index(batch_op.f("ix_appeal_test_id"))
        batch_op.drop_index(batch_op.f("ix_appeal_state"))
        batch_op.drop_index(batch_op.f("ix_appeal_contributor_id"))
    op.drop_table("appeal")
