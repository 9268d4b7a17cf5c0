"""Periodic work: the job sweep, the quarantine clean-up, expired drafts and /operations metric
samples, on a Taskiq scheduler or inside the web process.

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

from benchmax.services.jobs import JobContext, sweep
from benchmax.services.operations import take_metrics_sample
from benchmax.services.pipeline import cleanup_quarantine
from benchmax.services.submissions.expiry import expire_drafts
from tasks.broker import broker
from tasks.run import QUARANTINE_CLEANUP_INTERVAL  # also registers the scheduled tasks

logger = logging.getLogger(__name__)

scheduler = TaskiqScheduler(broker, sources=[LabelScheduleSource(broker)])


async def run_embedded_sweeper(ctx: JobContext, stop: asyncio.Event) -> None:
    """Sweep now and then every ``sweep_interval_seconds`` until ``stop`` is set.

    The first sweep at start-up picks up whatever the previous run of the process left.
    Needs this process's dispatcher to be configured. The quarantine clean-up runs at start-up
    and then every ``QUARANTINE_CLEANUP_INTERVAL``; a metric sample every
    ``metrics_interval_seconds``; expired drafts are deleted every
    ``draft_expiry_interval_seconds``.
    """
    next_cleanup = next_sample = next_expiry = time.monotonic()
    while not stop.is_set():
        if time.monotonic() >= next_sample:
            next_sample += ctx.settings.metrics_interval_seconds
            try:
                await asyncio.to_thread(take_metrics_sample, ctx)
            except Exception as exc:
                logger.warning("metric sample failed (%s)", type(exc).__name__)
        if time.monotonic() >= next_cleanup:
            next_cleanup += QUARANTINE_CLEANUP_INTERVAL.total_seconds()
            try:
                await asyncio.to_thread(cleanup_quarantine, ctx)
            except Exception as exc:
                logger.warning("quarantine clean-up failed (%s)", type(exc).__name__)
        if time.monotonic() >= next_expiry:
            next_expiry += ctx.settings.draft_expiry_interval_seconds
            try:
                await asyncio.to_thread(expire_drafts, ctx)
            except Exception as exc:
                logger.warning("draft expiry failed (%s)", type(exc).__name__)
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
