"""showcase: prompt keys, leaderboard policies and sealed snapshots, comparison groups

Revision ID: 0011
Revises: 0006
Create Date: 2026-12-01 09:46:39

``test.prompt_key`` (SHA-256 of the normalised prompt, rules version in
``test.prompt_key_version``) is added and backfilled for every existing Test, in batches, with
the same function the ORM uses on every write.

Published leaderboard snapshots are frozen by the database on both engines: UPDATE and
DELETE of a published ``leaderboard_snapshot`` or of any row of one are refused, and a row
INSERT into a published snapshot is accepted only at a position inside its ``row_count``
(the primary key already refuses a position twice) - which is exactly what a logical restore
does, and nothing more. A snapshot may change while it is ``building``. Policies,
supersessions and prompt alias decisions are append-only like reviews.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

from benchmax.models.prompt_key import PROMPT_KEY_VERSION, prompt_key

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

APPEND_ONLY = ("leaderboard_policy", "leaderboard_supersession", "prompt_alias")
FROZEN = ("leaderboard_snapshot", "leaderboard_row")
_BACKFILL_BATCH = 2000

_PG_FREEZE_SNAPSHOT = """
CREATE FUNCTION benchmax_freeze_snapshot() RETURNS trigger AS $$
BEGIN
    IF OLD.status = 'published' THEN
        RAISE EXCEPTION 'published leaderboard snapshot %: % refused', OLD.id, TG_OP;
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql
"""

_PG_FREEZE_ROW = """
CREATE FUNCTION benchmax_freeze_snapshot_row() RETURNS trigger AS $$
DECLARE
    parent_status text;
    parent_rows integer;
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        SELECT status INTO parent_status FROM leaderboard_snapshot WHERE id = OLD.snapshot_id;
        IF parent_status = 'published' THEN
            RAISE EXCEPTION 'published leaderboard snapshot %: row % refused',
                OLD.snapshot_id, TG_OP;
        END IF;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        SELECT status, row_count INTO parent_status, parent_rows
            FROM leaderboard_snapshot WHERE id = NEW.snapshot_id;
        IF parent_status = 'published' AND (
            TG_OP = 'UPDATE' OR NEW.position < 1 OR NEW.position > parent_rows
        ) THEN
            RAISE EXCEPTION 'published leaderboard snapshot %: row % refused',
                NEW.snapshot_id, TG_OP;
        END IF;
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql
"""

_PARENT = "(SELECT status FROM leaderboard_snapshot WHERE id = {side}.snapshot_id) = 'published'"
_SQLITE_TRIGGERS = {
    "leaderboard_snapshot_frozen_update": (
        "BEFORE UPDATE ON leaderboard_snapshot WHEN OLD.status = 'published'",
        "published leaderboard snapshot: UPDATE refused",
    ),
    "leaderboard_snapshot_frozen_delete": (
        "BEFORE DELETE ON leaderboard_snapshot WHEN OLD.status = 'published'",
        "published leaderboard snapshot: DELETE refused",
    ),
    "leaderboard_row_frozen_update": (
        f"BEFORE UPDATE ON leaderboard_row WHEN {_PARENT.format(side='OLD')} "
        f"OR {_PARENT.format(side='NEW')}",
        "published leaderboard snapshot: row UPDATE refused",
    ),
    "leaderboard_row_frozen_delete": (
        f"BEFORE DELETE ON leaderboard_row WHEN {_PARENT.format(side='OLD')}",
        "published leaderboard snapshot: row DELETE refused",
    ),
    "leaderboard_row_frozen_insert": (
        "BEFORE INSERT ON leaderboard_row WHEN EXISTS (SELECT 1 FROM leaderboard_snapshot "
        "WHERE id = NEW.snapshot_id AND status = 'published' "
        "AND (NEW.position < 1 OR NEW.position > row_count))",
        "published leaderboard snapshot: row INSERT refused",
    ),
}


def _create_triggers() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_PG_FREEZE_SNAPSHOT)
        op.execute(_PG_FREEZE_ROW)
        op.execute(
            "CREATE TRIGGER leaderboard_snapshot_frozen BEFORE UPDATE OR DELETE "
            "ON leaderboard_snapshot FOR EACH ROW EXECUTE FUNCTION benchmax_freeze_snapshot()"
        )
        op.execute(
            "CREATE TRIGGER leaderboard_row_frozen BEFORE INSERT OR UPDATE OR DELETE "
            "ON leaderboard_row FOR EACH ROW EXECUTE FUNCTION benchmax_freeze_snapshot_row()"
        )
        for table in APPEND_ONLY:
            op.execute(
                f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION benchmax_refuse_change()"
            )
        for table in (*APPEND_ONLY, *FROZEN):
            op.execute(
                f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION benchmax_refuse_change()"
            )
        return
    for name, (when, message) in _SQLITE_TRIGGERS.items():
        op.execute(f"CREATE TRIGGER {name} {when} BEGIN SELECT RAISE(ABORT, '{message}'); END")
    for table in APPEND_ONLY:
        for operation in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER {table}_no_{operation.lower()} BEFORE {operation} ON {table} "
                f"BEGIN SELECT RAISE(ABORT, 'append-only table {table}: {operation} refused'); END"
            )


def _drop_triggers() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS leaderboard_snapshot_frozen ON leaderboard_snapshot")
        op.execute("DROP TRIGGER IF EXISTS leaderboard_row_frozen ON leaderboard_row")
        for table in APPEND_ONLY:
            op.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")
        for table in (*APPEND_ONLY, *FROZEN):
            op.execute(f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {table}")
        op.execute("DROP FUNCTION IF EXISTS benchmax_freeze_snapshot_row()")
        op.execute("DROP FUNCTION IF EXISTS benchmax_freeze_snapshot()")
        return
    for name in _SQLITE_TRIGGERS:
        op.execute(f"DROP TRIGGER IF EXISTS {name}")
    for table in APPEND_ONLY:
        for operation in ("update", "delete"):
            op.execute(f"DROP TRIGGER IF EXISTS {table}_no_{operation}")


def _backfill_prompt_keys() -> None:
    """Key every existing Test, a batch at a time, in id order (a keyset, never OFFSET)."""
    bind = op.get_bind()
    select_batch = sa.text("SELECT id, prompt FROM test WHERE id > :after ORDER BY id LIMIT :limit")
    update_one = sa.text(
        "UPDATE test SET prompt_key = :key, prompt_key_version = :version WHERE id = :id"
    )
    after = ""
    while True:
        rows = bind.execute(select_batch, {"after": after, "limit": _BACKFILL_BATCH}).all()
        if not rows:
            return
        bind.execute(
            update_one,
            [
                {"id": test_id, "key": prompt_key(prompt or ""), "version": PROMPT_KEY_VERSION}
                for test_id, prompt in rows
            ],
        )
        after = rows[-1][0]


def upgrade() -> None:
    # ### commands auto generated by Alembic - please adjust! ###
    op.create_table(
        "leaderboard_policy",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("formula", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("prior_weight", sa.Integer(), nullable=False),
        sa.Column("prior_mean_rule", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("review_kinds", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("judge_snapshot_ids", sa.Text(), nullable=False),
        sa.Column("eligibility", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("created_by", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("version"),
    )
    op.create_table(
        "prompt_band",
        sa.Column("prompt_key", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("band", sa.Integer(), nullable=False),
        sa.Column("band_hash", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.PrimaryKeyConstraint("prompt_key", "band"),
    )
    with op.batch_alter_table("prompt_band", schema=None) as batch_op:
        batch_op.create_index("ix_prompt_band_lookup", ["band", "band_hash"], unique=False)

    op.create_table(
        "prompt_signature",
        sa.Column("prompt_key", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("signature", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("prompt_key"),
    )
    op.create_table(
        "leaderboard_snapshot",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("request_key", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("policy_id", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("policy_json", sa.Text(), nullable=False),
        sa.Column("prior_mean_bp", sa.Integer(), nullable=False),
        sa.Column("cutoff_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("row_count", sa.Integer(), nullable=False),
        sa.Column("sha256", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("published_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["policy_id"],
            ["leaderboard_policy.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("request_key"),
    )
    with op.batch_alter_table("leaderboard_snapshot", schema=None) as batch_op:
        batch_op.create_index(
            "ix_leaderboard_snapshot_listing", ["status", "published_at"], unique=False
        )

    op.create_table(
        "prompt_alias",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("key_a", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("key_b", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("moderator_id", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["moderator_id"],
            ["user.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("prompt_alias", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_prompt_alias_key_a"), ["key_a"], unique=False)
        batch_op.create_index(batch_op.f("ix_prompt_alias_key_b"), ["key_b"], unique=False)

    op.create_table(
        "leaderboard_supersession",
        sa.Column("snapshot_id", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("superseded_by_id", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["snapshot_id"],
            ["leaderboard_snapshot.id"],
        ),
        sa.ForeignKeyConstraint(
            ["superseded_by_id"],
            ["leaderboard_snapshot.id"],
        ),
        sa.PrimaryKeyConstraint("snapshot_id"),
    )
    op.create_table(
        "leaderboard_row",
        sa.Column("snapshot_id", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("test_id", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("score_bp", sa.Integer(), nullable=False),
        sa.Column("review_count", sa.Integer(), nullable=False),
        sa.Column("score_min", sa.Integer(), nullable=False),
        sa.Column("score_max", sa.Integer(), nullable=False),
        sa.Column("review_ids", sa.Text(), nullable=False),
        sa.Column("family_id", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("catalog_model_id", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("model_key", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("harness_id", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("harness_key", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("reasoning_key", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["snapshot_id"],
            ["leaderboard_snapshot.id"],
        ),
        sa.ForeignKeyConstraint(
            ["test_id"],
            ["test.id"],
        ),
        sa.PrimaryKeyConstraint("snapshot_id", "position"),
    )
    with op.batch_alter_table("leaderboard_row", schema=None) as batch_op:
        batch_op.create_index(
            "ix_leaderboard_row_family", ["snapshot_id", "family_id", "position"], unique=False
        )
        batch_op.create_index(
            "ix_leaderboard_row_harness", ["snapshot_id", "harness_id", "position"], unique=False
        )
        batch_op.create_index(
            "ix_leaderboard_row_harness_key",
            ["snapshot_id", "harness_key", "position"],
            unique=False,
        )
        batch_op.create_index(
            "ix_leaderboard_row_model",
            ["snapshot_id", "catalog_model_id", "position"],
            unique=False,
        )
        batch_op.create_index(
            "ix_leaderboard_row_model_key", ["snapshot_id", "model_key", "position"], unique=False
        )
        batch_op.create_index(
            "ix_leaderboard_row_reasoning",
            ["snapshot_id", "reasoning_key", "position"],
            unique=False,
        )
        batch_op.create_index("ix_leaderboard_row_test", ["test_id", "snapshot_id"], unique=False)

    with op.batch_alter_table("test", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "prompt_key",
                sqlmodel.sql.sqltypes.AutoString(length=64),
                nullable=False,
                server_default="",
            )
        )
        batch_op.add_column(
            sa.Column("prompt_key_version", sa.Integer(), nullable=False, server_default="0")
        )
        batch_op.create_index("ix_test_prompt_group", ["prompt_key", "state"], unique=False)

    # ### end Alembic commands ###
    _backfill_prompt_keys()
    _create_triggers()


def downgrade() -> None:
    _drop_triggers()
    # ### commands auto generated by Alembic - please adjust! ###
    with op.batch_alter_table("test", schema=None) as batch_op:
        batch_op.drop_index("ix_test_prompt_group")
    # Plain ALTER TABLE ... DROP COLUMN (SQLite 3.35+): a batch "move and copy" of ``test``
    # would DROP TABLE it, which the foreign keys of every other table refuse.
    op.drop_column("test", "prompt_key_version")
    op.drop_column("test", "prompt_key")

    with op.batch_alter_table("leaderboard_row", schema=None) as batch_op:
        batch_op.drop_index("ix_leaderboard_row_test")
        batch_op.drop_index("ix_leaderboard_row_reasoning")
        batch_op.drop_index("ix_leaderboard_row_model_key")
        batch_op.drop_index("ix_leaderboard_row_model")
        batch_op.drop_index("ix_leaderboard_row_harness_key")
        batch_op.drop_index("ix_leaderboard_row_harness")
        batch_op.drop_index("ix_leaderboard_row_family")

    op.drop_table("leaderboard_row")
    op.drop_table("leaderboard_supersession")
    with op.batch_alter_table("prompt_alias", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_prompt_alias_key_b"))
        batch_op.drop_index(batch_op.f("ix_prompt_alias_key_a"))

    op.drop_table("prompt_alias")
    with op.batch_alter_table("leaderboard_snapshot", schema=None) as batch_op:
        batch_op.drop_index("ix_leaderboard_snapshot_listing")

    op.drop_table("leaderboard_snapshot")
    op.drop_table("prompt_signature")
    with op.batch_alter_table("prompt_band", schema=None) as batch_op:
        batch_op.drop_index("ix_prompt_band_lookup")

    op.drop_table("prompt_band")
    op.drop_table("leaderboard_policy")
    # ### end Alembic commands ###
