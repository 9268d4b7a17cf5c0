"""A flooding account never holds every preview slot: another account's preview runs at once.

The sandbox here is a stand-in that holds the flooder's evaluation until the test opens a
gate, so "at once" is not a matter of timing: with a single slot, the other account's
preview could not start before the gate opens. Everything else — the job runtime, its
dispatcher, the per-account cap and the budget — is the real code on the embedded queue.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from benchmax.adapters.sandbox import EvaluationOutput, limit_result
from benchmax.adapters.storage.local import LocalStorage
from benchmax.models import PreviewEvaluation, PreviewState, Test, User
from benchmax.runtime.runner import JobRuntime, start_dispatcher
from benchmax.services.jobs import JobContext
from benchmax.services.preview.jobs import request_preview
from tests.integration.test_worker_durability import wait_until
from tests.support.factories import make_user
from tests.support.preview_sites import WORKING, publish_site

pytestmark = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)


class GatedSandbox:
    """Holds evaluations of ``held_account``'s Tests until ``gate`` is set; records who started."""

    name = "local"

    def __init__(self, engine: Engine, held_account: str) -> None:
        self.engine = engine
        self.held_account = held_account
        self.gate = threading.Event()
        self.started: list[str] = []

    def evaluate(
        self, zip_path: Path, timeout_seconds: float, *, labels: dict[str, str] | None = None
    ) -> EvaluationOutput:
        test_id = (labels or {})["benchmax_test"]
        self.started.append(test_id)
        with Session(self.engine) as session:
            test = session.get(Test, test_id)
        if test is not None and test.contributor_id == self.held_account:
            self.gate.wait(60)
        return limit_result("memory_limit")  # a site result: the preview is finished


def _publish(ctx: JobContext, storage: LocalStorage, user: User) -> str:
    with ctx.session() as session:
        test = publish_site(session, storage, WORKING, contributor=session.get(User, user.id))
        request_preview(session, ctx.settings, test.id)
        session.commit()
        return test.id


def _finished(ctx: JobContext, test_id: str) -> bool:
    with Session(ctx.engine) as session:
        states = session.exec(
            select(PreviewEvaluation.state).where(PreviewEvaluation.test_id == test_id)
        ).all()
    return bool(states) and all(state != PreviewState.PENDING for state in states)


def test_another_accounts_preview_finishes_while_the_flooders_is_held(
    pipeline_ctx: JobContext, local_storage: LocalStorage
) -> None:
    assert pipeline_ctx.settings.preview_slots > pipeline_ctx.settings.preview_queue_per_account
    with pipeline_ctx.session() as session:
        flooder, other = make_user(session, handle="flooder"), make_user(session, handle="other")
        session.commit()
    sandbox = GatedSandbox(pipeline_ctx.engine, flooder.id)
    settings = pipeline_ctx.settings.model_copy(update={"preview_sandbox": "local"})
    ctx = replace(pipeline_ctx, settings=settings, sandbox=sandbox)
    runtime = JobRuntime(ctx)
    dispatcher = start_dispatcher(runtime)
    ctx.queue.attach(dispatcher)
    try:
        flood = [_publish(ctx, local_storage, flooder) for _ in range(3)]
        wait_until(lambda: bool(sandbox.started), "the flooder's first preview to start")
        mine = _publish(ctx, local_storage, other)
        wait_until(lambda: _finished(ctx, mine), "the other account's preview to finish")
        # Still held: one of the flooder's previews is running, the others wait behind it.
        assert [test_id for test_id in sandbox.started if test_id in flood] == flood[:1]
        assert not any(_finished(ctx, test_id) for test_id in flood)
        sandbox.gate.set()
        wait_until(lambda: all(_finished(ctx, test_id) for test_id in flood), "the flood")
        assert sorted(sandbox.started) == sorted([*flood, mine])
    finally:
        sandbox.gate.set()
        ctx.queue.attach(None)
        dispatcher.close()
        runtime.close()
