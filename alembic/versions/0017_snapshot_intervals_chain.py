"""snapshot intervals and chain: score intervals and rank bands per row; chained, signed seals

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-02 05:40:00

Plain ``ADD COLUMN`` on both engines (no table rebuild), so the triggers of 0011 that freeze
published snapshots stay as they are. Existing rows and snapshots get zeros and empty strings:
their seals do not cover these columns, and ``verify`` checks them as they were sealed.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_ROW_COLUMNS = ("score_low_bp", "score_high_bp", "band_first", "band_last")
_SNAPSHOT_COLUMNS = {
    "previous_id": 16,
    "previous_sha256": 64,
    "public_key": 64,
    "signature": 128,
    "key_rotation": 300,
}


def upgrade() -> None:
    for name in _ROW_COLUMNS:
        op.add_column(
            "leaderboard_row",
            sa.Column(name, sa.Integer(), nullable=False, server_default="0"),
        )
    for name, length in _SNAPSHOT_COLUMNS.items():
        op.add_column(
            "leaderboard_snapshot",
            sa.Column(
                name,
                sqlmodel.sql.sqltypes.AutoString(length=length),
                nullable=False,
                server_default="",
            ),
        )


def downgrade() -> None:
    for name in _SNAPSHOT_COLUMNS:
        op.drop_column("leaderboard_snapshot", name)
    for name in _ROW_COLUMNS:
        op.drop_column("leaderboard_row", name)
