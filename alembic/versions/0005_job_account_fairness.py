"""jobs know their account, so scans are shared fairly between accounts

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 10:00:00

``job.account_id`` names the account whose work a job is (set for safety scans, empty for
everything else); a claim counts that account's running jobs against
``BENCHMAX_SCAN_CONCURRENCY_PER_ACCOUNT``. ``ix_job_account_state`` keeps that count and
the hand-off to the account's next waiting job cheap. Existing rows get an empty account:
they are claimed as before, uncapped.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("job", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "account_id",
                sqlmodel.sql.sqltypes.AutoString(length=16),
                nullable=False,
                server_default="",
            )
        )
        batch_op.create_index("ix_job_account_state", ["account_id", "state"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("job", schema=None) as batch_op:
        batch_op.drop_index("ix_job_account_state")
        batch_op.drop_column("account_id")
