"""A whole Test in one request: a retry that lost the race for its Idempotency-Key."""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from benchmax.adapters.queue import DispatcherSlot
from benchmax.adapters.storage.local import LocalStorage
from benchmax.models import Job, Test, User
from benchmax.services import tokens
from benchmax.services.errors import Conflict, Invalid
from benchmax.services.jobs import JobContext
from benchmax.services.safety import SafetyLimits
from benchmax.services.submissions.at_once import (
    IncomingFile,
    Submitter,
    WholeSubmission,
    fingerprint,
    submit_at_once,
)
from benchmax.services.submissions.idempotency import idempotency_digest
from benchmax.services.submissions.quota import Rate
from benchmax.settings import Settings
from tests.support.submission_helpers import COMPLETE, contributor


class _Sent:
    """A dispatcher that remembers what it was handed."""

    def __init__(self) -> None:
        self.job_ids: list[int] = []

    def send(self, job_ids: Sequence[int]) -> None:
        self.job_ids.extend(job_ids)


def _jobs(settings: Settings, engine: Engine, tmp_path: Path) -> tuple[JobContext, _Sent]:
    sent, queue = _Sent(), DispatcherSlot()
    queue.attach(sent)
    storage = LocalStorage(tmp_path / "objects")
    return JobContext.from_settings(settings, engine=engine, storage=storage, queue=queue), sent


def _submitter(engine: Engine, user: User) -> Submitter:
    with Session(engine) as session:
        row, _plaintext = tokens.create_token(session, user, "ci")
        session.commit()
        return Submitter(user.id, row.id, Rate("submissions", 30, 600))


def _request(data: bytes = b"hello") -> WholeSubmission:
    files = [IncomingFile("notes.txt", io.BytesIO(data), len(data))]
    return WholeSubmission(dict(COMPLETE), files, fingerprint(COMPLETE, files))


@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
def test_a_retry_that_lost_the_race_for_its_key_answers_with_the_first_test(
    settings: Settings, engine: Engine, tmp_path: Path
) -> None:
    jobs, sent = _jobs(settings, engine, tmp_path)
    storage = jobs.storage
    user = contributor(engine)
    submitter = _submitter(engine, user)
    key = idempotency_digest("run-7")
    first = submit_at_once(jobs, submitter, key, _request(), SafetyLimits()).test_id
    stored = sorted(info.key for info in storage.list())
    with Session(engine) as session:
        queued = [job_id for job_id in session.exec(select(Job.id)).all() if job_id is not None]
    assert queued
    assert sorted(sent.job_ids) == sorted(queued)  # sent once the Test committed

    # A concurrent retry looked for the key before the first committed; under the account's
    # lock it finds the first Test and answers with it, uncounted.
    again = submit_at_once(jobs, submitter, key, _request(), SafetyLimits())
    assert again.test_id == first
    assert again.allowance is None
    with pytest.raises(Conflict) as reused:
        submit_at_once(jobs, submitter, key, _request(b"other"), SafetyLimits())
    assert reused.value.code == "idempotency_key_reused"

    with Session(engine) as session:
        assert session.exec(select(Test.id)).all() == [first]
    assert sorted(info.key for info in storage.list()) == stored


def test_a_refused_request_keeps_no_test_and_no_object(
    settings: Settings, engine: Engine, tmp_path: Path
) -> None:
    jobs, sent = _jobs(settings, engine, tmp_path)
    user = contributor(engine)
    submitter = _submitter(engine, user)
    request = _request()
    refused = [*request.files, IncomingFile("..", io.BytesIO(b"x"), 1)]
    with pytest.raises(Invalid) as caught:
        submit_at_once(jobs, submitter, None, replace(request, files=refused), SafetyLimits())
    assert caught.value.code == "filename_dots_only"

    with Session(engine) as session:
        assert session.exec(select(Test.id)).all() == []
    assert list(jobs.storage.list()) == []  # the first file was written, then deleted
    assert sent.job_ids == []


def test_the_fingerprint_covers_the_fields_and_each_file_s_name_and_bytes() -> None:
    request = _request()
    assert fingerprint(COMPLETE, request.files) == request.fingerprint  # each file read again
    assert _request(b"other").fingerprint != request.fingerprint
    renamed = [replace(request.files[0], name="other.txt")]
    assert fingerprint(COMPLETE, renamed) != request.fingerprint
    assert fingerprint({**COMPLETE, "title": "x"}, request.files) != request.fingerprint
