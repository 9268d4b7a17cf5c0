"""Periodic work: the job sweep, on a Taskiq scheduler or inside the web process.

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
from contextlib import suppress

from taskiq import TaskiqScheduler
from taskiq.schedule_sources import LabelScheduleSource

import tasks.run  # noqa: F401 - registers the scheduled tasks' labels on the broker
from benchmax.services.jobs import JobContext, sweep
from tasks.broker import broker

logger = logging.getLogger(__name__)

scheduler = TaskiqScheduler(broker, sources=[LabelScheduleSource(broker)])


async def run_embedded_sweeper(ctx: JobContext, stop: asyncio.Event) -> None:
    """Sweep now and then every ``sweep_interval_seconds`` until ``stop`` is set.

    The first sweep at start-up picks up whatever the previous run of the process left.
    Needs this process's dispatcher to be configured.
    """
    while not stop.is_set():
        try:
            sent = await asyncio.to_thread(sweep, ctx)
        except Exception as exc:
            logger.warning("job sweep failed (%s); retrying next interval", type(exc).__name__)
        else:
            if sent:
                logger.info("job sweep re-sent %d jobs", sent)
        with suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), ctx.settings.sweep_interval_seconds)


if __name__ == "__main__":
    from taskiq.cli.scheduler.cmd import SchedulerCMD

    SchedulerCMD().exec(["tasks.scheduler:scheduler", *sys.argv[1:]])
