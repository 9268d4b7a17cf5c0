"""Test-only job kinds, imported by the worker subprocesses of the durability tests.

``SLOW`` notes each start in ``runs.log`` (so the test can count executions, including one
killed half-way), sleeps, then records its effect idempotently: one ``AuditEvent`` per
subject, added only if none exists. ``CRASH`` always fails with content in its message, which
must never reach the job row or the logs.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from sqlmodel import select

from benchmax.models import AuditEvent
from benchmax.services.jobs import JobContext, job_handler

SLOW = "test.durability.slow"
CRASH = "test.durability.crash"
EFFECT = "test.durability.effect"
CANARY = "durability-canary-prompt-content"
DIR_ENV = "BENCHMAX_TEST_DURABILITY_DIR"
SLEEP_ENV = "BENCHMAX_TEST_DURABILITY_SLEEP"


def runs_log(directory: Path) -> Path:
    return directory / "runs.log"


@job_handler(SLOW)
def slow(ctx: JobContext, subject_id: str) -> None:
    with runs_log(Path(os.environ[DIR_ENV])).open("a") as log:
        log.write(subject_id + "\n")
    time.sleep(float(os.environ.get(SLEEP_ENV, "0")))
    with ctx.session() as session:
        done = session.exec(
            select(AuditEvent).where(
                AuditEvent.action == EFFECT, AuditEvent.subject_id == subject_id
            )
        ).first()
        if done is None:
            session.add(AuditEvent(action=EFFECT, subject_type="test", subject_id=subject_id))


@job_handler(CRASH)
def crash(ctx: JobContext, subject_id: str) -> None:
    raise RuntimeError(CANARY)
