"""What the web process runs beside its pages: the job dispatcher and, embedded, the sweeper.

With the in-memory queue the web process is also the worker, so it sweeps for due and
lease-expired jobs itself. With Redis it only dispatches; workers and the one scheduler do
the rest.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from benchmax.adapters.queue import configure_dispatcher
from benchmax.services.jobs import JobContext
from benchmax.settings import get_settings


@asynccontextmanager
async def job_runtime() -> AsyncIterator[None]:
    from tasks.run import build_dispatcher, use_job_context
    from tasks.scheduler import run_embedded_sweeper

    settings = get_settings()
    dispatcher = build_dispatcher()
    configure_dispatcher(dispatcher)
    stop = asyncio.Event()
    sweeper: asyncio.Task[None] | None = None
    if settings.queue_backend == "memory":
        ctx = JobContext.from_settings(settings)
        use_job_context(ctx)
        sweeper = asyncio.create_task(run_embedded_sweeper(ctx, stop))
    try:
        yield
    finally:
        stop.set()
        if sweeper is not None:
            await sweeper
        configure_dispatcher(None)
        dispatcher.close()
