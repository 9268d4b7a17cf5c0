"""preview_account_day: each contributor's share of the daily preview budget

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-02 09:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('preview_account_day',
    sa.Column('day', sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
    sa.Column('contributor_id', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('used', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('day', 'contributor_id')
    )


def downgrade() -> None:
    op.drop_table('preview_account_day')
