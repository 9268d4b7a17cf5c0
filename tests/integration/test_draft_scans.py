"""Files are scanned as soon as they reach a draft; submit only waits for what is left."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from benchmax.adapters.storage.local import LocalStorage
from benchmax.models import EvidenceState, Job, JobState, TestState
from benchmax.services import submissions
from benchmax.services.errors import ServiceError
from benchmax.services.jobs import JobContext
from benchmax.services.submissions import SCAN_EVIDENCE
from tests.support.submission_helpers import COMPLETE, contributor, draft_with, drain, load
from tests.unit.safety.corpus import fake_secrets, png_bytes

pytestmark = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)


def _jobs(engine: Engine) -> list[Job]:
    with Session(engine) as session:
        return list(session.exec(select(Job).order_by(col(Job.id))).all())


def test_an_upload_enqueues_its_scan_and_the_verdict_is_known_before_submit(
    engine: Engine, local_storage: LocalStorage, pipeline_ctx: JobContext
) -> None:
    user = contributor(engine)
    secret = fake_secrets()["anthropic_api_key"]
    files = {"shot.png": png_bytes(), "run.log": f"ok\nkey={secret}\n".encode()}
    test_id = draft_with(engine, local_storage, user, COMPLETE, files, submit=False)
    jobs = _jobs(engine)
    assert [(job.kind, job.account_id) for job in jobs] == [(SCAN_EVIDENCE, user.id)] * 2
    assert drain(pipeline_ctx) == [SCAN_EVIDENCE] * 2
    test, (shot, log) = load(engine, test_id)
    assert test.state == TestState.DRAFT  # a verdict on a draft file publishes nothing
    assert (shot.state, log.state) == (EvidenceState.APPROVED, EvidenceState.BLOCKED)
    assert local_storage.head(log.quarantine_key) is None  # the secret's bytes are gone at once
    assert secret not in log.block_reason
    with Session(engine) as session:
        view = submissions.processing_status(session, user, test_id)
    assert [(f.state, bool(f.reason)) for f in view.files] == [
        ("approved", False),
        ("blocked", True),
    ]
    # Submit refuses while a file is blocked; remove it and submit: nothing is scanned again.
    with Session(engine) as session:
        with pytest.raises(ServiceError) as refused:
            submissions.submit(session, user, test_id)
        assert refused.value.code == "blocked_files"
        submissions.remove_file(session, local_storage, user, test_id, log.id)
        submissions.submit(session, user, test_id)
        session.commit()
    assert drain(pipeline_ctx) == ["publish_test"]
    assert load(engine, test_id)[0].state == TestState.PUBLIC
    assert len([job for job in _jobs(engine) if job.kind == SCAN_EVIDENCE]) == 2


def test_submit_while_a_scan_is_still_running_waits_for_it_and_then_publishes(
    engine: Engine, local_storage: LocalStorage, pipeline_ctx: JobContext
) -> None:
    user = contributor(engine)
    test_id = draft_with(
        engine, local_storage, user, COMPLETE, {"a.png": png_bytes()}, submit=False
    )
    with Session(engine) as session:
        submissions.submit(session, user, test_id)
        session.commit()
    with Session(engine) as session, pytest.raises(ServiceError) as again:
        submissions.submit(session, user, test_id)  # a double click changes nothing
    assert again.value.code == "not_editable"
    # One scan (the upload's), then publishing: submit added no second scan.
    assert [job.kind for job in _jobs(engine)] == [SCAN_EVIDENCE]
    assert drain(pipeline_ctx) == [SCAN_EVIDENCE, "publish_test"]
    assert load(engine, test_id)[0].state == TestState.PUBLIC


def test_a_file_removed_or_replaced_while_its_scan_waits_is_never_settled(
    engine: Engine, local_storage: LocalStorage, pipeline_ctx: JobContext
) -> None:
    user = contributor(engine)
    test_id = draft_with(
        engine, local_storage, user, COMPLETE, {"a.png": png_bytes()}, submit=False
    )
    _test, (first,) = load(engine, test_id)
    with Session(engine) as session:
        submissions.remove_file(session, local_storage, user, test_id, first.id)
        submissions.add_file(
            session,
            local_storage,
            user,
            test_id,
            "b.png",
            [png_bytes((20, 20))],
            settings=pipeline_ctx.settings,
        )
        session.commit()
    drain(pipeline_ctx)
    _test, (removed, second) = load(engine, test_id)
    assert (removed.state, second.state) == (EvidenceState.REMOVED, EvidenceState.APPROVED)
    assert local_storage.head(f"evidence/{test_id}/{removed.id}") is None


def test_a_scan_that_died_on_a_draft_is_scanned_again_on_submit(
    engine: Engine, local_storage: LocalStorage, pipeline_ctx: JobContext
) -> None:
    user = contributor(engine)
    test_id = draft_with(
        engine, local_storage, user, COMPLETE, {"a.png": png_bytes()}, submit=False
    )
    with Session(engine) as session:
        job = session.exec(select(Job)).one()
        job.state = JobState.DEAD
        session.add(job)
        session.commit()
    assert load(engine, test_id)[0].state == TestState.DRAFT  # a draft does not "fail"
    with Session(engine) as session:
        submissions.submit(session, user, test_id)
        session.commit()
    assert drain(pipeline_ctx) == [SCAN_EVIDENCE, "publish_test"]
    assert load(engine, test_id)[0].state == TestState.PUBLIC
