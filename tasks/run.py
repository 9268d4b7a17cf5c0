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
from benchmax.context import AppContext
from benchmax.services.jobs import JobContext, run_job
from benchmax.services.judge.review import JUDGE_REVIEW, job_kind
from benchmax.services.preview.jobs import PREVIEW_EVALUATE
from benchmax.settings import Settings, get_settings
from tasks.broker import broker
from tasks.periodic import PERIODIC_JOBS, PeriodicJob

_context: JobContext | None = None


def use_job_context(ctx: JobContext | None) -> None:
    """Run this process's jobs with ``ctx``: the application context's ``jobs``, set by the
    web app's lifespan (embedded), the worker's start-up hook below, or a test."""
    global _context
    _context = ctx


def job_context() -> JobContext:
    if _context is None:
        raise RuntimeError("no job context: the process's start-up hook sets one")
    return _context


def worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


# A judge request may take many seconds; reviews get threads of their own so that safety
# scans and publishing never wait behind them (publication must not depend on the judge).
_judge_threads = ThreadPoolExecutor(
    max_workers=get_settings().judge_concurrency, thread_name_prefix="benchmax-judge"
)
# A preview runs a browser for up to a couple of minutes: one at a time per process, beside
# the other jobs, never in front of them.
_preview_threads = ThreadPoolExecutor(max_workers=1, thread_name_prefix="benchmax-preview")


@broker.task(task_name=RUN_JOB_TASK)
async def run_job_task(job_id: int) -> str:
    ctx = job_context()
    own_threads = ctx.settings.judge_enabled or ctx.settings.preview_sandbox != "off"
    kind = await asyncio.to_thread(job_kind, ctx, job_id) if own_threads else None
    pool = {JUDGE_REVIEW: _judge_threads, PREVIEW_EVALUATE: _preview_threads}.get(kind or "")
    if pool is not None:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(pool, run_job, job_id, ctx, worker_id())
    return await asyncio.to_thread(run_job, job_id, ctx, worker_id())


def _schedule(job: PeriodicJob) -> None:
    """Register ``job`` as a Taskiq task the scheduler sends every ``job.every`` seconds."""

    async def run_periodic() -> int:
        return await asyncio.to_thread(job.run, job_context())

    interval = int(job.every(get_settings()))
    broker.task(task_name=job.task_name, schedule=[{"interval": interval}])(run_periodic)


for _job in PERIODIC_JOBS:
    _schedule(_job)


def build_dispatcher(settings: Settings) -> TaskiqDispatcher:
    """The dispatcher this process should use to send jobs.

    In memory, jobs go to this very broker and run in this process (the tasks above are
    registered on it). With Redis the dispatcher gets a broker of its own: it sends from its
    own event loop, and Redis connections must not be shared between loops (a worker listens
    on ``broker`` in its main loop).
    """
    if isinstance(broker, InMemoryBroker):
        return TaskiqDispatcher(broker)
    return TaskiqDispatcher(build_broker(settings))


_worker_context: AppContext | None = None


@broker.on_event(TaskiqEvents.WORKER_STARTUP)
async def _start_worker(_state: Any) -> None:
    """A worker builds its application context once: its jobs run with the context's
    ``JobContext``, and handlers may enqueue follow-up jobs, so it starts a dispatcher too."""
    global _worker_context
    if _context is not None and current_dispatcher() is not None:
        return  # the embedded web app or a test has set this process up already
    ctx = AppContext.from_settings(get_settings())
    ctx.queue.attach(build_dispatcher(ctx.settings))
    if _context is None:
        use_job_context(ctx.jobs)
    if current_dispatcher() is None:
        configure_dispatcher(ctx.queue)
    _worker_context = ctx


@broker.on_event(TaskiqEvents.WORKER_SHUTDOWN)
async def _stop_worker(_state: Any) -> None:
    global _worker_context
    if _worker_context is None:
        return
    if current_dispatcher() is _worker_context.queue:
        configure_dispatcher(None)
    dispatcher = _worker_context.queue.attach(None)
    if isinstance(dispatcher, TaskiqDispatcher):
        dispatcher.close()
    if _context is _worker_context.jobs:
        use_job_context(None)
    _worker_context = None
