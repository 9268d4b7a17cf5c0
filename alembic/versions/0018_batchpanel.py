"""gateway call id: the declared reference of a Test imported from a bench gateway's panel reply

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-02 08:40:00

Plain ``ADD COLUMN`` with an empty default on both engines, so the table, its rowids and the
full-text triggers stay as they are; earlier Tests declared no call id.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "test",
        sa.Column(
            "gateway_call_id",
            sqlmodel.sql.sqltypes.AutoString(length=128),
            nullable=False,
            server_default="",
        ),
    )


def downgrade() -> None:
    op.drop_column("test", "gateway_call_id")
