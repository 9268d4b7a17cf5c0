"""preview: automated preview evaluations, their artifacts, the daily budget and retry counters

Revision ID: 0013
Revises: 0011
Create Date: 2026-12-01 13:29:33

One evaluation per (Test, source ZIP SHA-256, evaluator template hash), enforced by a unique
index so a job that runs twice cannot evaluate twice.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = "0013"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('preview_budget_day',
    sa.Column('day', sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
    sa.Column('used', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('day')
    )
    op.create_table('preview_retry_day',
    sa.Column('day', sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
    sa.Column('contributor_id', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('used', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('day', 'contributor_id')
    )
    op.create_table('preview_evaluation',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('test_id', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('evidence_id', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('zip_sha256', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('template', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('template_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('sandbox', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('state', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('reader_reason', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('error_code', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('result_json', sa.Text(), nullable=False),
    sa.Column('load_ms', sa.Integer(), nullable=True),
    sa.Column('console_error_count', sa.Integer(), nullable=True),
    sa.Column('axe_violation_count', sa.Integer(), nullable=True),
    sa.Column('duration_ms', sa.Integer(), nullable=True),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['test_id'], ['test.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('preview_evaluation', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_preview_evaluation_state'), ['state'], unique=False)
        batch_op.create_index(batch_op.f('ix_preview_evaluation_test_id'), ['test_id'], unique=False)
        batch_op.create_index('uq_preview_evaluation_input', ['test_id', 'zip_sha256', 'template_hash'], unique=True)

    op.create_table('preview_artifact',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('evaluation_id', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('storage_key', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('content_type', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('size_bytes', sa.Integer(), nullable=False),
    sa.Column('sha256', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['evaluation_id'], ['preview_evaluation.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('preview_artifact', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_preview_artifact_evaluation_id'), ['evaluation_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('preview_artifact', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_preview_artifact_evaluation_id'))

    op.drop_table('preview_artifact')
    with op.batch_alter_table('preview_evaluation', schema=None) as batch_op:
        batch_op.drop_index('uq_preview_evaluation_input')
        batch_op.drop_index(batch_op.f('ix_preview_evaluation_test_id'))
        batch_op.drop_index(batch_op.f('ix_preview_evaluation_state'))

    op.drop_table('preview_evaluation')
    op.drop_table('preview_retry_day')
    op.drop_table('preview_budget_day')
