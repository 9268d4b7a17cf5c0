"""What the web process runs beside its pages: the job dispatcher and, embedded, the sweeper.

The dispatcher is started here, inside the serving process, and attached to the application
context's queue slot. With the in-memory queue the web process is also the worker, so it runs
the jobs with the context's ``JobContext`` and sweeps for due and lease-expired jobs itself.
With Redis it only dispatches; workers and the one scheduler do the rest.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from benchmax.adapters.queue import configure_dispatcher
from benchmax.context import AppContext


@asynccontextmanager
async def job_runtime(ctx: AppContext) -> AsyncIterator[None]:
    from tasks.run import build_dispatcher, use_job_context
    from tasks.scheduler import run_embedded_sweeper

    dispatcher = build_dispatcher(ctx.settings)
    ctx.queue.attach(dispatcher)
    configure_dispatcher(ctx.queue)
    stop = asyncio.Event()
    sweeper: asyncio.Task[None] | None = None
    if ctx.settings.queue_backend == "memory":
        use_job_context(ctx.jobs)
        sweeper = asyncio.create_task(run_embedded_sweeper(ctx.jobs, stop))
    try:
        yield
    finally:
        stop.set()
        if sweeper is not None:
            await sweeper
        configure_dispatcher(None)
        ctx.queue.attach(None)
        dispatcher.close()
