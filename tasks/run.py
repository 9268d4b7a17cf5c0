"""The task functions, thin wrappers that run job services in a thread, and the dispatcher
that sends them.

Handlers are synchronous database code, so each message is handed to ``run_job`` (or
``sweep``) in a worker thread and the event loop stays free to receive more. Modules that
register job handlers (``@job_handler``) must be imported here so that every worker, and the
web process in the embedded default, knows every kind.
"""

from __future__ import annotations

import asyncio
import os
import socket
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from taskiq import InMemoryBroker, TaskiqEvents

from benchmax.adapters.queue import (
    RUN_JOB_TASK,
    TaskiqDispatcher,
    build_broker,
    configure_dispatcher,
    current_dispatcher,
)
from benchmax.services.jobs import JobContext, run_job
from benchmax.services.judge.review import is_judge_job
from benchmax.settings import get_settings
from tasks.broker import broker
from tasks.periodic import PERIODIC_JOBS, PeriodicJob

_context: JobContext | None = None


def use_job_context(ctx: JobContext | None) -> None:
    """Run this process's jobs with ``ctx`` (tests; a web app that already built one)."""
    global _context
    _context = ctx


def job_context() -> JobContext:
    global _context
    if _context is None:
        _context = JobContext.from_settings(get_settings())
    return _context


def worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


# A judge request may take many seconds; reviews get threads of their own so that safety
# scans and publishing never wait behind them (publication must not depend on the judge).
_judge_threads = ThreadPoolExecutor(
    max_workers=get_settings().judge_concurrency, thread_name_prefix="benchmax-judge"
)


@broker.task(task_name=RUN_JOB_TASK)
async def run_job_task(job_id: int) -> str:
    ctx = job_context()
    if ctx.settings.judge_enabled and await asyncio.to_thread(is_judge_job, ctx, job_id):
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(_judge_threads, run_job, job_id, ctx, worker_id())
    return await asyncio.to_thread(run_job, job_id, ctx, worker_id())


def _schedule(job: PeriodicJob) -> None:
    """Register ``job`` as a Taskiq task the scheduler sends every ``job.every`` seconds."""

    async def run_periodic() -> int:
        return await asyncio.to_thread(job.run, job_context())

    interval = int(job.every(get_settings()))
    broker.task(task_name=job.task_name, schedule=[{"interval": interval}])(run_periodic)


for _job in PERIODIC_JOBS:
    _schedule(_job)


def build_dispatcher() -> TaskiqDispatcher:
    """The dispatcher this process should use to send jobs.

    In memory, jobs go to this very broker and run in this process (the tasks above are
    registered on it). With Redis the dispatcher gets a broker of its own: it sends from its
    own event loop, and Redis connections must not be shared between loops (a worker listens
    on ``broker`` in its main loop).
    """
    if isinstance(broker, InMemoryBroker):
        return TaskiqDispatcher(broker)
    return TaskiqDispatcher(build_broker(get_settings()))


@broker.on_event(TaskiqEvents.WORKER_STARTUP)
async def _start_dispatching(_state: Any) -> None:
    """Handlers may enqueue follow-up jobs, so a worker needs a dispatcher too."""
    if current_dispatcher() is None:
        configure_dispatcher(build_dispatcher())


@broker.on_event(TaskiqEvents.WORKER_SHUTDOWN)
async def _stop_dispatching(_state: Any) -> None:
    dispatcher = configure_dispatcher(None)
    if isinstance(dispatcher, TaskiqDispatcher):
        dispatcher.close()
