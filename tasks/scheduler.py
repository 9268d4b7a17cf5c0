"""Periodic work (the table in ``tasks.periodic``: the job sweep, the quarantine clean-up,
expired drafts and /operations metric samples), on a Taskiq scheduler or inside the web process.

Production runs exactly one ``taskiq scheduler tasks.scheduler:scheduler`` (or, the same,
``python -m tasks.scheduler``); it sends ``benchmax.sweep`` every ``sweep_interval_seconds``
and a worker runs it. If Redis is down the tick is lost and the next one sweeps: a sweep only
ever re-sends, so a skipped one delays work and a doubled one is harmless.

The embedded default has no scheduler process; the web app runs ``run_embedded_sweeper`` from
its lifespan instead.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from contextlib import suppress

from taskiq import TaskiqScheduler
from taskiq.schedule_sources import LabelScheduleSource

import tasks.run  # noqa: F401 - registers the scheduled tasks on the broker
from benchmax.services.jobs import JobContext
from tasks.broker import broker
from tasks.periodic import PERIODIC_JOBS

logger = logging.getLogger(__name__)

scheduler = TaskiqScheduler(broker, sources=[LabelScheduleSource(broker)])


async def run_embedded_sweeper(ctx: JobContext, stop: asyncio.Event) -> None:
    """Run every periodic job now and then on its interval until ``stop`` is set.

    The first round at start-up picks up whatever the previous run of the process left.
    Needs this process's dispatcher to be configured. A failed run is logged (its error type
    only) and tried again at its next interval.
    """
    due = dict.fromkeys(PERIODIC_JOBS, time.monotonic())
    while not stop.is_set():
        for job in PERIODIC_JOBS:
            if time.monotonic() < due[job]:
                continue
            due[job] = time.monotonic() + job.every(ctx.settings)
            try:
                done = await asyncio.to_thread(job.run, ctx)
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


if __name__ == "__main__":
    from taskiq.cli.scheduler.cmd import SchedulerCMD

    SchedulerCMD().exec(["tasks.scheduler:scheduler", *sys.argv[1:]])
