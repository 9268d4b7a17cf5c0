"""What the web process runs beside its pages: the job dispatcher and, embedded, the jobs.

The dispatcher is started here, inside the serving process, and attached to the application
context's queue slot. With the in-memory queue the web process is also the worker, so its
dispatcher runs the jobs with the context's ``JobContext``, the periodic jobs (the sweep
among them) run here too, and a poll every few seconds runs due jobs that only exist as rows
(a CLI requeue, say). With Redis it only dispatches; workers and the one scheduler do the
rest.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from benchmax.context import AppContext
from benchmax.runtime.embedded import poll_due_jobs, run_periodic_jobs
from benchmax.runtime.runner import JobRuntime, start_dispatcher


@asynccontextmanager
async def job_runtime(ctx: AppContext) -> AsyncIterator[None]:
    runtime = JobRuntime(ctx.jobs)
    dispatcher = start_dispatcher(runtime)
    ctx.queue.attach(dispatcher)
    stop = asyncio.Event()
    loops: list[asyncio.Task[None]] = []
    if ctx.settings.queue_backend == "memory":
        loops.append(asyncio.create_task(run_periodic_jobs(runtime, stop)))
        loops.append(asyncio.create_task(poll_due_jobs(runtime, stop)))
    try:
        yield
    finally:
        stop.set()
        for loop in loops:
            await loop
        # Before the dispatcher closes: in memory, the running jobs live on its loop.
        await asyncio.to_thread(runtime.close, ctx.settings.shutdown_grace_seconds)
        ctx.queue.attach(None)
        dispatcher.close()
