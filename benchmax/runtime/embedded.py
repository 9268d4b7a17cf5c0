"""The periodic jobs inside the web process, for the embedded default without a scheduler.

Production runs exactly one Taskiq scheduler (``tasks.scheduler``) and workers run what it
sends. The embedded default has neither, so the web app's lifespan runs ``run_periodic_jobs``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from contextlib import suppress

from benchmax.runtime.periodic import PERIODIC_JOBS
from benchmax.runtime.runner import JobRuntime
from benchmax.services.jobs import sweep

logger = logging.getLogger(__name__)

DUE_POLL_SECONDS = 2.0
"""How often the embedded process looks for due jobs it is not already running."""


async def run_periodic_jobs(runtime: JobRuntime, stop: asyncio.Event) -> None:
    """Run every periodic job now and then on its interval until ``stop`` is set.

    The first round at start-up picks up whatever the previous run of the process left.
    Needs the runtime's queue to have a dispatcher attached. A failed run is logged (its error
    type only) and tried again at its next interval.
    """
    settings = runtime.jobs.settings
    due = dict.fromkeys(PERIODIC_JOBS, time.monotonic())
    while not stop.is_set():
        for job in PERIODIC_JOBS:
            if time.monotonic() < due[job]:
                continue
            due[job] = time.monotonic() + job.every(settings)
            try:
                done = await runtime.run_periodic(job)
            except Exception as exc:
                logger.warning(
                    "%s failed (%s); retrying next interval", job.what, type(exc).__name__
                )
            else:
                if done and job.report:
                    logger.info(job.report, done)
        wait = max(0.0, min(due.values()) - time.monotonic())
        with suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), wait)


async def poll_due_jobs(runtime: JobRuntime, stop: asyncio.Event) -> None:
    """Send every due job this process is not running, every ``DUE_POLL_SECONDS``.

    With the in-memory queue nothing outside this process can reach its queue: a job
    requeued or enqueued by the CLI, or by another process on the same database, is only a
    row. Polling for due rows (minus the ids already in flight here, so nothing is sent
    twice) runs such a job within seconds instead of after ``job_resend_seconds``.
    """
    while not stop.is_set():
        try:
            await asyncio.to_thread(
                sweep, runtime.jobs, resend_after=0, in_flight=frozenset(runtime.in_flight)
            )
        except Exception as exc:
            logger.warning("due-job poll failed (%s); trying again", type(exc).__name__)
        with suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), DUE_POLL_SECONDS)
