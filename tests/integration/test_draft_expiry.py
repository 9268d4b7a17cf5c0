"""Abandoned drafts expire: deleted with their objects, durably and idempotently."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, update
from sqlmodel import Session, col, select

from benchmax.adapters.storage.local import LocalStorage
from benchmax.models import AuditEvent, CancelledUpload, EvidenceFile, Test, TestState
from benchmax.models._base import as_utc, utcnow
from benchmax.services import submissions
from benchmax.services.jobs import JobContext
from benchmax.services.submissions.expiry import expire_drafts
from tests.support.submission_helpers import COMPLETE, contributor, draft_with, drain, load
from tests.unit.safety.corpus import png_bytes

pytestmark = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)


def _age(engine: Engine, test_id: str, hours: float) -> None:
    with Session(engine) as session:
        session.execute(
            update(Test)
            .where(col(Test.id) == test_id)
            .values(updated_at=utcnow() - timedelta(hours=hours))
        )
        session.commit()


def _objects(local_storage: LocalStorage) -> list[Path]:
    return [path for path in local_storage.root.rglob("*") if path.is_file()]


def test_an_untouched_draft_is_deleted_with_its_files_and_others_are_kept(
    engine: Engine, local_storage: LocalStorage, pipeline_ctx: JobContext
) -> None:
    ttl = pipeline_ctx.settings.draft_ttl_hours
    user = contributor(engine)
    files = {"a.png": png_bytes(), "b.txt": b"waiting in quarantine\n"}
    old = draft_with(engine, local_storage, user, COMPLETE, files, submit=False)
    drain(pipeline_ctx)  # both settle (one into evidence storage); then a new one waits
    with Session(engine) as session:
        submissions.add_file(
            session,
            local_storage,
            user,
            old,
            "c.txt",
            [b"not scanned yet\n"],
            settings=pipeline_ctx.settings,
        )
        session.commit()
    fresh = draft_with(engine, local_storage, user, COMPLETE, {"d.txt": b"fresh\n"}, submit=False)
    submitted = draft_with(
        engine, local_storage, user, {**COMPLETE, "output_text": "x"}, submit=True
    )
    with Session(engine) as session:  # a cancelled upload's record goes with its draft
        submissions.cancel_upload(session, local_storage, user, old, "k" * 32)
        session.commit()
    for test_id in (old, submitted):
        _age(engine, test_id, ttl + 1)
    _age(engine, fresh, ttl - 1)
    kept_objects = {p for p in _objects(local_storage) if old not in str(p)}
    assert len(_objects(local_storage)) > len(kept_objects)

    assert expire_drafts(pipeline_ctx) == 1
    with Session(engine) as session:
        assert session.get(Test, old) is None
        assert session.exec(select(EvidenceFile).where(EvidenceFile.test_id == old)).all() == []
        assert session.exec(select(CancelledUpload)).all() == []
        event = session.exec(select(AuditEvent).where(AuditEvent.subject_id == old)).one()
    assert (event.action, event.detail) == (
        "test.draft_expired",
        {"contributor_id": user.id, "files": 3},
    )
    assert set(_objects(local_storage)) == kept_objects
    assert load(engine, fresh)[0].state == TestState.DRAFT
    assert load(engine, submitted)[0].state == TestState.PROCESSING
    assert expire_drafts(pipeline_ctx) == 0  # nothing left to do; a second run is harmless
    drain(pipeline_ctx)  # the deleted draft's pending scan finds nothing and does nothing


def test_me_says_when_each_draft_expires_and_a_save_moves_the_deadline(
    engine: Engine, local_storage: LocalStorage, pipeline_ctx: JobContext
) -> None:
    ttl = timedelta(hours=pipeline_ctx.settings.draft_ttl_hours)
    user = contributor(engine)
    draft = draft_with(engine, local_storage, user, COMPLETE, submit=False)
    done = draft_with(engine, local_storage, user, {**COMPLETE, "output_text": "x"}, submit=True)
    _age(engine, draft, 10)
    with Session(engine) as session:
        rows = {row.id: row for row in submissions.my_tests(session, user, pipeline_ctx.settings)}
        updated = as_utc(session.get(Test, draft).updated_at)  # type: ignore[union-attr]
    assert rows[done].expires_at is None
    assert rows[draft].expires_at == updated + ttl
    with Session(engine) as session:
        submissions.save_draft(session, user, draft, {"notes": "still working on it"})
        session.commit()
        later = {row.id: row for row in submissions.my_tests(session, user, pipeline_ctx.settings)}[
            draft
        ]
    assert later.expires_at > rows[draft].expires_at  # type: ignore[operator]
    _age(engine, draft, pipeline_ctx.settings.draft_ttl_hours - 1)
    assert expire_drafts(pipeline_ctx) == 0
