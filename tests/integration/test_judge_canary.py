"""Canary: logs, queue messages and job rows carry ids, never evidence or the judge key."""

from __future__ import annotations

import json
import logging

import pytest
from sqlalchemy import Engine
from sqlmodel import select

from benchmax.models import Job
from benchmax.services.catalog.seed import seed_catalog
from benchmax.services.jobs import JobContext
from benchmax.settings import Settings
from tests.support.fake_judge import FakeJudge
from tests.support.jobs_fixtures import RecordedJobQueue
from tests.support.judge_helpers import JUDGE_KEY, judge_settings, make_active_snapshot, steps
from tests.support.submission_helpers import COMPLETE, contributor, draft_with, drain

CANARY = "canary-evidence-93c1d7 quokka"


@pytest.mark.parametrize("behaviour", ["honest", "error", "malformed"])
def test_no_log_line_or_message_carries_evidence_or_the_key(
    settings: Settings,
    engine: Engine,
    fake_judge: FakeJudge,
    job_ctx: JobContext,
    job_queue: RecordedJobQueue,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    behaviour: str,
) -> None:
    monkeypatch.setenv("OPENAI_LOG", "debug")
    caplog.set_level(logging.DEBUG)
    on = judge_settings(settings, fake_judge, "d" * 64)
    with job_ctx.session() as session:
        seed_catalog(session)
        make_active_snapshot(session, on)
        session.commit()
    ctx = JobContext.from_settings(on, engine=engine, queue=job_ctx.queue)
    fake_judge.state.behaviour = behaviour
    user = contributor(engine)
    fields = {**COMPLETE, "output_text": f"{CANARY}\n{steps(5, 5)}", "notes": CANARY}
    draft_with(ctx, ctx.storage, user, fields)
    drain(ctx)
    assert fake_judge.state.calls >= 1
    # The judge did receive the evidence (datamarked), so the canary is a fair one.
    assert "canary-evidence-93c1d7" in json.dumps(fake_judge.state.requests[0].body)
    logged = "\n".join(
        f"{record.getMessage()} {record.args!r} {record.exc_text or ''}"
        for record in caplog.records
    )
    assert logged  # the pipeline and the judge did log
    for secret in ("canary-evidence", "quokka", JUDGE_KEY):
        assert secret not in logged
    messages = job_queue.wait_for(1)
    assert all(isinstance(job_id, int) for job_id in messages)
    with job_ctx.session() as session:
        rows = json.dumps(
            [
                (j.kind, j.subject_id, j.last_error_code, j.lease_owner)
                for j in session.exec(select(Job))
            ]
        )
    for secret in ("canary-evidence", "quokka", JUDGE_KEY):
        assert secret not in rows
