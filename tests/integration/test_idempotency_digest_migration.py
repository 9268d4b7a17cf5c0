"""0006 rewrites stored Idempotency-Key headers as their digests, so old retries still match."""

from __future__ import annotations

import pytest
from alembic import command
from sqlalchemy import Engine, text
from sqlmodel import Session

from benchmax.migrations import alembic_config
from benchmax.services.submissions.idempotency import idempotency_digest
from tests.support.factories import make_test

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)


@BOTH
def test_stored_headers_become_digests_and_stay_findable(
    database_url: str, engine: Engine, session: Session
) -> None:
    config = alembic_config(database_url)
    # Rows are made at head (today's model has columns 0005 lacks), then the header is stored
    # raw as it was before 0006.
    keyed = make_test(session, idempotency_fingerprint="f" * 64)
    plain = make_test(session)
    session.commit()
    session.close()
    command.downgrade(config, "0005")
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE test SET idempotency_key = 'run-7' WHERE id = :id"), {"id": keyed.id}
        )

    command.upgrade(config, "head")
    with engine.connect() as conn:
        rows: dict[str, str | None] = dict(
            conn.execute(text("SELECT id, idempotency_key FROM test")).all()
        )
    assert rows == {keyed.id: idempotency_digest("run-7"), plain.id: None}
    assert "run-7" not in repr(rows)

    # Digests cannot become headers again: the downgrade forgets them, so a second upgrade
    # has nothing to hash twice.
    command.downgrade(config, "0005")
    command.upgrade(config, "head")
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(idempotency_key) FROM test")).scalar_one() == 0
