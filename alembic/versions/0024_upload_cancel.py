"""upload cancel: a wizard upload's Cancel holds even when its bytes had all arrived

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-02 20:00:00

The wizard names each upload with a random key. A Cancel marks the key cancelled for its
draft: a file already stored under it is removed, and an upload still storing its bytes
finds the mark under the Test's lock and stores nothing.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "evidence_file",
        sa.Column(
            "upload_key",
            sqlmodel.sql.sqltypes.AutoString(length=64),
            nullable=False,
            server_default="",
        ),
    )
    op.create_table(
        "cancelled_upload",
        sa.Column("test_id", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("upload_key", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["test_id"], ["test.id"]),
        sa.PrimaryKeyConstraint("test_id", "upload_key"),
    )


def downgrade() -> None:
    op.drop_table("cancelled_upload")
    op.drop_column("evidence_file", "upload_key")
