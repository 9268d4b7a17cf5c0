"""The submission pipeline with real processes: Redis streams, taskiq workers and scheduler.

A worker killed mid-scan and a Redis outage during submit only delay publication; a scan
that always crashes ends with a dead job and "Processing failed", and Retry then publishes.
No case loses the draft or makes a second Test. A canary typed into the prompt, the output
and a file never reaches a log, a job row or a queue message.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import redis
from sqlalchemy import Engine, func
from sqlmodel import Session, select
from starlette.applications import Starlette
from starlette.testclient import TestClient

from benchmax.adapters.queue import TaskiqDispatcher, build_broker
from benchmax.adapters.storage.local import LocalStorage
from benchmax.api.errors import EXCEPTION_HANDLERS
from benchmax.api.submissions import submission_routes
from benchmax.context import AppContext
from benchmax.models import EvidenceState, Job, JobState, Test, TestState
from benchmax.services import submissions, tokens
from benchmax.services.jobs import sweep
from tests.integration import pipeline_faults as faults
from tests.integration import test_worker_durability as durability
from tests.integration.test_worker_durability import (  # noqa: F401 - stack is a fixture
    WORKER_OPTIONS,
    Stack,
    stack,
    wait_until,
)
from tests.support.submission_helpers import COMPLETE, contributor, draft_with, load
from tests.unit.safety.corpus import png_bytes

pytestmark = pytest.mark.timeout(240)
WORKER = ("worker", "tasks.broker:broker", "tasks.run", "tests.integration.pipeline_faults")
FILES = {"shot.png": png_bytes(), "run.log": b"all fine\n"}


def _storage(stack: Stack) -> LocalStorage:  # noqa: F811
    return LocalStorage(stack.settings.resolved_storage_root)


def _worker(stack: Stack, fault: str = "", *extra: str) -> object:  # noqa: F811
    stack.env[faults.FAULT_ENV] = fault
    return stack.start(*WORKER, *WORKER_OPTIONS, *extra)


def _state(engine: Engine, test_id: str) -> TestState:
    return TestState(load(engine, test_id)[0].state)


def _tests(engine: Engine) -> int:
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(Test)).one()


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_worker_killed_mid_scan_still_publishes_once(stack: Stack) -> None:  # noqa: F811
    engine = stack.ctx.engine
    user = contributor(engine)
    test_id = draft_with(stack.ctx, _storage(stack), user, COMPLETE, {"shot.png": png_bytes()})
    first = _worker(stack, "slow")
    wait_until(lambda: faults.scans_log(stack.directory).exists(), "the scan to start")
    stack.kill(first)  # type: ignore[arg-type]
    assert _state(engine, test_id) == TestState.PROCESSING
    _worker(stack)
    wait_until(
        lambda: _state(engine, test_id) == TestState.PUBLIC,
        "publication after the lease expired",
        tick=lambda: sweep(stack.ctx),
    )
    _test, (row,) = load(engine, test_id)
    assert row.state == EvidenceState.APPROVED
    assert _tests(engine) == 1


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_submit_while_redis_is_unreachable_publishes_when_it_is_back(stack: Stack) -> None:  # noqa: F811
    unreachable = stack.settings.model_copy(
        update={"redis_url": f"redis://127.0.0.1:{durability._closed_port()}/15"}
    )
    down = TaskiqDispatcher(build_broker(unreachable))
    stack.ctx.queue.attach(down)
    engine = stack.ctx.engine
    user = contributor(engine)
    test_id = draft_with(stack.ctx, _storage(stack), user, COMPLETE, FILES)
    down.close()
    assert _state(engine, test_id) == TestState.PROCESSING
    _worker(stack)
    stack.start_module("tasks.scheduler")
    wait_until(lambda: _state(engine, test_id) == TestState.PUBLIC, "the sweep to send the scans")
    assert _tests(engine) == 1


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_scan_that_always_crashes_shows_processing_failed_and_retry_works(stack: Stack) -> None:  # noqa: F811
    engine = stack.ctx.engine
    user = contributor(engine)
    test_id = draft_with(stack.ctx, _storage(stack), user, {**COMPLETE, "notes": "kept"}, FILES)
    _worker(stack, "crash")
    stack.start("scheduler", "tasks.scheduler:scheduler")
    wait_until(lambda: _state(engine, test_id) == TestState.FAILED, "the scans to go dead")
    with Session(engine) as session:
        states = session.exec(select(Job.state).where(Job.kind == "scan_evidence")).all()
        assert JobState.DEAD in states
        view = submissions.processing_status(session, user, test_id)
    assert view.plain_status == "Processing failed"
    stack.stop_all()
    assert faults.CANARY not in stack.log.read_text()

    _worker(stack)
    stack.start("scheduler", "tasks.scheduler:scheduler")
    with stack.ctx.session() as session:
        submissions.retry_processing(session, user, test_id)
    wait_until(lambda: _state(engine, test_id) == TestState.PUBLIC, "the retried Test to publish")
    test, rows = load(engine, test_id)
    assert test.notes == "kept"
    assert [row.state for row in rows] == [EvidenceState.APPROVED] * 2
    assert _tests(engine) == 1


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_canary_never_reaches_logs_jobs_or_messages(stack: Stack, tmp_path: Path) -> None:  # noqa: F811
    canary = "canary-7f3e-do-not-log"
    engine = stack.ctx.engine
    user = contributor(engine)
    with Session(engine) as session:
        _row, token = tokens.create_token(session, user, "ci")
        session.commit()
    app_log = tmp_path / "app.log"
    handler = logging.FileHandler(app_log)
    handler.setLevel(logging.DEBUG)
    root = logging.getLogger()
    previous_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        ctx = AppContext.from_settings(stack.settings, engine=engine, storage=_storage(stack))
        ctx.queue.attach(stack.ctx.queue.attached)  # the stack's dispatcher, onto its Redis
        client = TestClient(
            Starlette(routes=submission_routes(ctx), exception_handlers=EXCEPTION_HANDLERS)
        )
        _worker(stack, "", "--log-level", "DEBUG")
        response = client.post(
            "/api/v1/tests",
            headers={"Authorization": f"Bearer {token}", "Idempotency-Key": canary},
            data={
                "prompt": f"prompt {canary}",
                "model": "m",
                "harness": "h",
                "reasoning": "r",
                "output": f"output {canary}",
            },
            files=[("files", ("notes.txt", f"file {canary}\n".encode()))],
        )
        assert response.status_code == 202, response.text
        test_id = response.json()["id"]
        wait_until(lambda: _state(engine, test_id) == TestState.PUBLIC, "publication")
    finally:
        root.removeHandler(handler)
        root.setLevel(previous_level)
        handler.close()
    stack.stop_all()
    logs = app_log.read_text() + stack.log.read_text()
    assert "job " in logs  # the logs did capture the pipeline at work
    assert canary not in logs
    with Session(engine) as session:
        assert canary not in repr(session.exec(select(Job)).all())
    client_redis = redis.Redis.from_url(stack.settings.redis_url)
    messages = client_redis.xrange(stack.settings.queue_name)
    client_redis.close()
    assert messages
    assert canary.encode() not in repr(messages).encode()
