"""The submission services the wizard calls: drafts, uploads, submit, status, publishing."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from benchmax.adapters.storage import ObjectStorage
from benchmax.adapters.storage.local import LocalStorage
from benchmax.models import (
    AccountStatus,
    AuditEvent,
    EvidenceState,
    Job,
    JobState,
    ReviewState,
    Test,
    TestState,
)
from benchmax.services import pipeline, submissions
from benchmax.services.errors import ServiceError
from benchmax.services.jobs import JobContext
from benchmax.services.safety import SafetyLimits
from benchmax.settings import Settings
from tests.support.submission_helpers import (
    COMPLETE,
    contributor,
    draft_with,
    drain,
    exhaust_only_job,
    load,
)
from tests.unit.safety.corpus import fake_secrets, jpeg_with_gps, png_bytes, zip_bytes

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)


@pytest.fixture
def storage(tmp_path: Path) -> LocalStorage:
    return LocalStorage(tmp_path / "objects")


def _ctx(job_ctx: JobContext, storage: ObjectStorage) -> JobContext:
    return replace(job_ctx, storage=storage)


def test_draft_is_private_resumable_and_saved_field_by_field(
    engine: Engine, settings: Settings
) -> None:
    user = contributor(engine)
    with Session(engine, expire_on_commit=False) as session:
        first = submissions.create_draft(session, user, settings)
        second = submissions.create_draft(session, user, settings)
        submissions.save_draft(session, user, first.id, {"prompt": "Hello"}, step=2)
        session.commit()
        assert submissions.latest_draft(session, user) == first
        assert (first.state, first.wizard_step, first.prompt) == (TestState.DRAFT, 2, "Hello")
        other = contributor(engine)
        with pytest.raises(ServiceError) as refused:
            submissions.get_own_test(session, other, second.id)
        assert refused.value.status == 404
        rows = submissions.my_tests(session, user, settings)
    assert [row.id for row in rows] == [first.id, second.id]
    assert (rows[0].plain_status, rows[0].action, rows[0].title) == ("Draft", "resume", "Hello")


def test_suspended_users_cannot_start_a_draft(engine: Engine, settings: Settings) -> None:
    user = contributor(engine, status=AccountStatus.SUSPENDED)
    with Session(engine) as session, pytest.raises(ServiceError) as refused:
        submissions.create_draft(session, user, settings)
    assert (refused.value.status, refused.value.code) == (403, "account_suspended")


@BOTH
@pytest.mark.parametrize("kind", sorted(fake_secrets()))
def test_a_secret_in_any_text_field_is_refused_and_nothing_is_stored(
    engine: Engine, settings: Settings, kind: str
) -> None:
    user = contributor(engine)
    secret = fake_secrets()[kind]
    # Split by zero-width spaces: still a working key once copied.
    hidden = "\u200b".join(secret[i : i + 5] for i in range(0, len(secret), 5))
    with Session(engine, expire_on_commit=False) as session:
        test = submissions.create_draft(session, user, settings)
        session.commit()
        for field, value in (("notes", hidden), ("prompt", f"line one\nkey: {secret}")):
            with pytest.raises(ServiceError) as refused:
                submissions.save_draft(session, user, test.id, {"title": "Kept?", field: value})
            assert (refused.value.code, refused.value.field) == ("secret_detected", field)
            assert secret not in refused.value.message
            assert "looks like" in refused.value.message
        session.rollback()
        stored = session.get(Test, test.id, populate_existing=True)
        assert stored is not None
        assert (stored.title, stored.prompt, stored.notes) == ("", "", "")


def test_secret_message_names_line_and_kind(engine: Engine, settings: Settings) -> None:
    user = contributor(engine)
    with Session(engine) as session:
        test = submissions.create_draft(session, user, settings)
        prompt = "a\nb\n" + fake_secrets()["anthropic_api_key"]
        with pytest.raises(ServiceError) as refused:
            submissions.save_draft(session, user, test.id, {"prompt": prompt})
    assert refused.value.message.startswith("Line 3 of the prompt looks like an Anthropic")


@pytest.mark.parametrize(
    ("fields", "code", "field"),
    [
        ({"prompt": "x" * 100_001}, "field_too_long", "prompt"),
        ({"model_label": "m" * 201}, "field_too_long", "model_label"),
        ({"harness_label": "two\nlines"}, "field_single_line", "harness_label"),
        ({"notes": "nul\x00byte"}, "field_control_chars", "notes"),
        ({"attempts": "0"}, "invalid_attempts", "attempts"),
        ({"attempts": "three"}, "invalid_attempts", "attempts"),
        ({"source_visibility": "friends"}, "invalid_source_visibility", "source_visibility"),
        ({"colour": "blue"}, "unknown_field", "colour"),
    ],
)
def test_field_rules_give_per_field_messages(
    engine: Engine, settings: Settings, fields: dict[str, str], code: str, field: str
) -> None:
    user = contributor(engine)
    with Session(engine) as session:
        test = submissions.create_draft(session, user, settings)
        with pytest.raises(ServiceError) as refused:
            submissions.save_draft(session, user, test.id, fields)
    assert (refused.value.code, refused.value.field, refused.value.status) == (code, field, 400)


def test_free_text_reasoning_blank_attempts_and_catalog_linking(
    engine: Engine, settings: Settings
) -> None:
    user = contributor(engine)
    with Session(engine) as session:
        test = submissions.create_draft(session, user, settings)
        saved = submissions.save_draft(
            session,
            user,
            test.id,
            {**COMPLETE, "reasoning_label": "thinking budget 8k", "attempts": " "},
        )
    assert saved.reasoning_label == "thinking budget 8k"
    assert saved.attempts is None
    assert saved.model_key  # link_declared_setup ran


@pytest.mark.parametrize(
    ("fields", "files", "field"),
    [
        ({**COMPLETE, "prompt": ""}, {}, "prompt"),
        ({**COMPLETE, "model_label": ""}, {}, "model_label"),
        ({**COMPLETE, "harness_label": " "}, {}, "harness_label"),
        ({**COMPLETE, "reasoning_label": ""}, {}, "reasoning_label"),
        (COMPLETE, {}, "output_text"),
    ],
)
def test_submit_requires_every_required_field(
    engine: Engine, storage: LocalStorage, fields: dict[str, str], files: dict, field: str
) -> None:
    user = contributor(engine)
    test_id = draft_with(engine, storage, user, fields, files, submit=False)
    with Session(engine) as session, pytest.raises(ServiceError) as refused:
        submissions.submit(session, user, test_id)
    assert refused.value.field == field
    assert load(engine, test_id)[0].state == TestState.DRAFT


@BOTH
def test_text_only_test_publishes_awaiting_review(
    engine: Engine, storage: LocalStorage, job_ctx: JobContext
) -> None:
    user = contributor(engine)
    test_id = draft_with(engine, storage, user, {**COMPLETE, "output_text": "Done."})
    with Session(engine) as session:
        assert submissions.processing_status(session, user, test_id).plain_status == "Processing"
    assert drain(_ctx(job_ctx, storage)) == ["publish_test"]
    test, _ = load(engine, test_id)
    assert (test.state, test.review_state) == (TestState.PUBLIC, ReviewState.AWAITING)
    assert test.published_at is not None
    with Session(engine) as session:
        view = submissions.processing_status(session, user, test_id)
    assert (view.plain_status, view.public_url) == ("Awaiting review", f"/tests/{test_id}")


@BOTH
def test_files_are_scanned_copied_verified_and_published(
    engine: Engine, object_storage: ObjectStorage, job_ctx: JobContext
) -> None:
    user = contributor(engine)
    files = {
        "photo.jpg": jpeg_with_gps(),
        "shot.png": png_bytes(),
        "run.log": b"step 1 ok\nstep 2 ok\n",
        "src.zip": zip_bytes({"index.html": b"<p>hi</p>"}),
    }
    test_id = draft_with(engine, object_storage, user, COMPLETE, files)
    ctx = _ctx(job_ctx, object_storage)
    assert sorted(drain(ctx)) == ["publish_test"] + ["scan_evidence"] * 4
    test, rows = load(engine, test_id)
    assert test.state == TestState.PUBLIC
    assert test.evidence_kinds == "image,source,text"
    assert test.thumbnail_evidence_id == rows[0].id
    for row in rows:
        assert row.state == EvidenceState.APPROVED
        assert row.storage_key == f"evidence/{test_id}/{row.id}"
        assert object_storage.head(row.quarantine_key) is None
        assert b"".join(object_storage.get(row.storage_key)).__len__() == row.size_bytes
    photo = rows[0]
    assert b"FakeCam" not in b"".join(object_storage.get(photo.storage_key))
    assert (photo.width, photo.height) == (60, 80)  # EXIF rotation applied, then stripped
    # Running the jobs again changes nothing.
    with Session(engine) as session:
        for job in session.exec(select(Job)).all():
            job.state = JobState.PENDING
            session.add(job)
        session.commit()
    drain(ctx)
    assert load(engine, test_id)[0].published_at == test.published_at


def test_upload_caps_count_total_and_file_size_while_streaming(
    engine: Engine, settings: Settings, storage: LocalStorage
) -> None:
    user = contributor(engine)
    limits = SafetyLimits(
        image_max_bytes=100,
        video_max_bytes=1000,
        text_max_bytes=100,
        zip_max_bytes=100,
        test_max_files=2,
        test_max_bytes=1500,
    )
    test_id = draft_with(engine, storage, user, submit=False)
    with Session(engine) as session:

        def add(name: str, size: int, declared: int | None = None) -> None:
            chunks = (b"a" * 100 for _ in range(size // 100))
            submissions.add_file(
                session,
                storage,
                user,
                test_id,
                name,
                chunks,
                declared_size=declared,
                limits=limits,
                settings=settings,
            )

        with pytest.raises(ServiceError) as refused:
            add("big.bin", 1100)
        assert (refused.value.status, refused.value.code) == (413, "file_too_large")
        with pytest.raises(ServiceError) as refused:
            add("big.bin", 100, declared=5000)
        assert refused.value.status == 413
        add("a.txt", 1000)
        with pytest.raises(ServiceError) as refused:
            add("b.txt", 600)  # the Test's total would pass 1500
        assert refused.value.status == 413
        add("b.txt", 400)
        with pytest.raises(ServiceError) as refused:
            add("c.txt", 100)
        assert refused.value.code == "test_too_many_files"
        with pytest.raises(ServiceError) as refused:
            add("../\u202eevil.txt", 100)
        assert refused.value.code == "filename_control_chars"
        session.commit()
    keys = [info.key for info in storage.list("quarantine/")]
    assert len(keys) == 2  # nothing partial left from the refused uploads
    assert not (storage.root / "uploaded_files").exists()


def test_uploads_read_a_file_object_in_bounded_chunks(
    engine: Engine, settings: Settings, storage: LocalStorage
) -> None:
    class Counting(io.BytesIO):
        largest = 0

        def read(self, size: int | None = -1) -> bytes:
            assert size is not None
            assert size > 0
            Counting.largest = max(Counting.largest, size)
            return super().read(size)

    user = contributor(engine)
    test_id = draft_with(engine, storage, user, submit=False)
    with Session(engine) as session:
        row = submissions.add_file(
            session,
            storage,
            user,
            test_id,
            "log.txt",
            Counting(b"x" * 3_000_000),
            settings=settings,
        )
    assert row.size_bytes == 3_000_000
    assert Counting.largest <= 1024 * 1024


def test_blocked_file_needs_attention_then_replace_and_publish(
    engine: Engine, storage: LocalStorage, job_ctx: JobContext
) -> None:
    user = contributor(engine)
    files = {"fine.txt": b"all good\n", "fake.png": b"this is not a png at all"}
    test_id = draft_with(engine, storage, user, {**COMPLETE, "notes": "kept"}, files)
    ctx = _ctx(job_ctx, storage)
    drain(ctx)
    test, rows = load(engine, test_id)
    assert test.state == TestState.NEEDS_ATTENTION
    assert "named like an image" in test.failure_reason
    fine, fake = rows
    assert (fine.state, fake.state) == (EvidenceState.APPROVED, EvidenceState.BLOCKED)
    assert storage.head(fake.quarantine_key) is None
    with Session(engine) as session:
        rows_me = submissions.my_tests(session, user, job_ctx.settings)
        assert (rows_me[0].plain_status, rows_me[0].action) == ("Needs attention", "fix")
        with pytest.raises(ServiceError) as refused:
            submissions.submit(session, user, test_id)
        assert refused.value.code == "blocked_files"
        new = submissions.replace_file(
            session,
            storage,
            user,
            test_id,
            fake.id,
            "real.png",
            [png_bytes()],
            settings=job_ctx.settings,
        )
        new_id = new.id
        submissions.submit(session, user, test_id)
        session.commit()
    drain(ctx)
    test, rows = load(engine, test_id)
    assert test.state == TestState.PUBLIC
    assert test.notes == "kept"
    assert [r.state for r in rows] == [
        EvidenceState.APPROVED,
        EvidenceState.REMOVED,
        EvidenceState.APPROVED,
    ]
    assert rows[2].id == new_id
    assert rows[1].block_reason  # the history keeps why


def test_scan_that_always_crashes_ends_failed_and_retry_publishes(
    engine: Engine, storage: LocalStorage, job_ctx: JobContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = contributor(engine)
    test_id = draft_with(engine, storage, user, COMPLETE, {"a.txt": b"hello\n"})
    ctx = _ctx(job_ctx, storage)

    def crash(*_args: object, **_options: object) -> None:
        raise MemoryError("scanner ran out")

    monkeypatch.setattr(pipeline, "scan_in_child", crash)
    exhaust_only_job(ctx)
    test, rows = load(engine, test_id)
    assert (test.state, test.failure_code) == (TestState.FAILED, "scan_failed")
    assert rows[0].state == EvidenceState.QUARANTINED
    with Session(engine) as session:
        row = submissions.my_tests(session, user, job_ctx.settings)[0]
        assert (row.plain_status, row.action) == ("Processing failed", "retry")
        assert "Retry" in row.reason
    monkeypatch.undo()
    with Session(engine) as session:
        submissions.retry_processing(session, user, test_id)
        session.commit()
        audit = session.exec(select(AuditEvent.action)).all()
    assert {"job.requeue", "test.retry_processing"} <= set(audit)
    drain(ctx)
    assert load(engine, test_id)[0].state == TestState.PUBLIC
    with Session(engine) as session:
        assert len(session.exec(select(Job).where(Job.kind == "scan_evidence")).all()) == 1


def test_cleanup_quarantine_keeps_waiting_files_and_deletes_orphans(
    engine: Engine, storage: LocalStorage, job_ctx: JobContext
) -> None:
    from datetime import timedelta

    user = contributor(engine)
    test_id = draft_with(engine, storage, user, COMPLETE, {"a.txt": b"x\n"}, submit=False)
    storage.put(f"quarantine/{test_id}/orphanorphanorph", [b"left behind"])
    ctx = _ctx(job_ctx, storage)
    assert pipeline.cleanup_quarantine(ctx) == 0  # everything is younger than a day
    assert pipeline.cleanup_quarantine(ctx, older_than=timedelta(0)) == 1
    assert [info.key.rsplit("/", 1)[-1] for info in storage.list("quarantine/")] == [
        load(engine, test_id)[1][0].id
    ]


def test_scan_whose_worker_died_on_its_last_attempt_shows_processing_failed(
    engine: Engine, storage: LocalStorage, job_ctx: JobContext, job_queue: object
) -> None:
    from benchmax.services.jobs import sweep
    from tests.support.jobs_fixtures import ago, set_job

    user = contributor(engine)
    test_id = draft_with(engine, storage, user, COMPLETE, {"a.txt": b"hello\n"})
    with job_ctx.session() as session:
        job_id = session.exec(select(Job.id)).one()
    assert job_id is not None
    set_job(
        engine,
        job_id,
        state=JobState.RUNNING,
        attempts=5,
        max_attempts=5,
        lease_owner="gone",
        lease_expires_at=ago(1),
    )
    sweep(_ctx(job_ctx, storage))
    test, _ = load(engine, test_id)
    assert (test.state, test.failure_code) == (TestState.FAILED, "scan_failed")


@pytest.mark.parametrize("fault", ["missing", "truncated"])
def test_a_lost_stored_upload_fails_on_our_side_with_retry_not_upload_again(
    engine: Engine, storage: LocalStorage, job_ctx: JobContext, fault: str
) -> None:
    """Storage lost the quarantined upload (a wiped bucket, a restore that missed it)."""
    user = contributor(engine)
    test_id = draft_with(engine, storage, user, COMPLETE, {"a.txt": b"hello\n"})
    key = load(engine, test_id)[1][0].quarantine_key
    kept = b"".join(storage.get(key))
    if fault == "missing":
        storage.delete(key)
    else:
        storage.put(key, [kept[:3]])
    ctx = _ctx(job_ctx, storage)
    exhaust_only_job(ctx)
    test, rows = load(engine, test_id)
    assert (test.state, test.failure_code) == (TestState.FAILED, "storage_failed")
    assert "upload it again" not in test.failure_reason.lower()
    assert "our side" in test.failure_reason
    assert rows[0].state == EvidenceState.QUARANTINED  # not blocked: nothing was wrong with it
    with Session(engine) as session:
        job = session.exec(select(Job).where(Job.kind == "scan_evidence")).one()
        assert job.last_error_code == f"stored_object_{fault}"
        row = submissions.my_tests(session, user, job_ctx.settings)[0]
        assert (row.plain_status, row.action) == ("Processing failed", "retry")
    storage.put(key, [kept])  # the operator restores the object
    with Session(engine) as session:
        submissions.retry_processing(session, user, test_id)
        session.commit()
    drain(ctx)
    assert load(engine, test_id)[0].state == TestState.PUBLIC
