"""keep Idempotency-Key values only as their SHA-256

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 10:00:00

A harness chooses its Idempotency-Key, and nothing stopped one from sending a model key
there; the header was stored verbatim in ``test.idempotency_key``. From now on the API
stores the SHA-256 (hex) of the header instead and looks retries up by it. This revision
rewrites the rows already stored the same way, so a retry of a submission made before the
upgrade still finds its Test, and no verbatim header stays in the database.

The digest is computed here rather than imported from the application, so the migration
keeps meaning what it meant when written. The column stays ``VARCHAR(200)``: a digest fits,
and rebuilding ``test`` (SQLite's only way to narrow a column) is not worth the risk.

The downgrade cannot turn digests back into headers, and older code could not match them
anyway; it forgets them (NULL), so that upgrading again never hashes a digest a second
time. A retry of such a submission then makes a new Test instead of finding the first one.
"""

import hashlib
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_STORED_KEYS = sa.text("SELECT id, idempotency_key FROM test WHERE idempotency_key IS NOT NULL")
_SET_KEY = sa.text("UPDATE test SET idempotency_key = :digest WHERE id = :id")


def upgrade() -> None:
    bind = op.get_bind()
    rows = bind.execute(_STORED_KEYS).all()
    updates = [
        {"id": test_id, "digest": hashlib.sha256(key.encode("utf-8")).hexdigest()}
        for test_id, key in rows
    ]
    if updates:
        bind.execute(_SET_KEY, updates)


def downgrade() -> None:
    op.execute("UPDATE test SET idempotency_key = NULL WHERE idempotency_key IS NOT NULL")
