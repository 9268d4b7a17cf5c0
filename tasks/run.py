"""The task functions: thin Taskiq wrappers over the process's ``JobRuntime``.

A worker builds its application context and runtime once, in the start-up hook below, and
keeps them in the broker's ``TaskiqState``; each task reads the runtime from there (Taskiq's
dependency injection, hence ``TaskiqDepends()`` as a default). The job
handlers are registered by importing the modules that define them, which ``benchmax.runtime``
does for every kind, so every worker knows every kind.
"""

from __future__ import annotations

import asyncio
import logging
import os

from taskiq import Context, TaskiqDepends, TaskiqEvents, TaskiqState

from benchmax.adapters.queue import RUN_JOB_TASK, TaskiqDispatcher
from benchmax.context import AppContext
from benchmax.runtime.periodic import PERIODIC_JOBS, PeriodicJob
from benchmax.runtime.runner import JobRuntime, start_dispatcher
from tasks.broker import SETTINGS, broker


@broker.task(task_name=RUN_JOB_TASK)
async def run_job_task(
    job_id: int,
    state: TaskiqState = TaskiqDepends(),  # noqa: B008
    context: Context = TaskiqDepends(),  # noqa: B008
) -> str:
    """Messages of this task are acknowledged by hand (``RUN_JOB_LABELS``), right after the
    claim commits: a claim that fails leaves the message to be redelivered."""
    runtime: JobRuntime = state.runtime
    return await runtime.run_job(job_id, context.ack if context.is_ackable else None)


def _schedule(job: PeriodicJob) -> None:
    """Register ``job`` as a Taskiq task the scheduler sends every ``job.every`` seconds."""

    async def run_periodic(state: TaskiqState = TaskiqDepends()) -> int:  # noqa: B008
        runtime: JobRuntime = state.runtime
        return await runtime.run_periodic(job)

    interval = int(job.every(SETTINGS))
    broker.task(task_name=job.task_name, schedule=[{"interval": interval}])(run_periodic)


for _job in PERIODIC_JOBS:
    _schedule(_job)


@broker.on_event(TaskiqEvents.WORKER_STARTUP)
async def _start_worker(state: TaskiqState) -> None:
    """A worker builds its application context once: its jobs run with the context's
    ``JobContext``, and handlers may enqueue follow-up jobs, so it starts a dispatcher too."""
    runtime = JobRuntime(AppContext.from_settings(SETTINGS).jobs)
    runtime.jobs.queue.attach(start_dispatcher(runtime))
    state.runtime = runtime


@broker.on_event(TaskiqEvents.WORKER_SHUTDOWN)
async def _stop_worker(state: TaskiqState) -> None:
    """Taskiq has already waited the grace period for running tasks (``worker_argv``); the
    leases of jobs still running are released now. Their threads cannot be interrupted and
    would hold the process open at exit, so it ends here instead: their work is handed back,
    and the unacknowledged messages are redelivered or dropped harmlessly by the claim."""
    runtime: JobRuntime | None = getattr(state, "runtime", None)
    if runtime is None:
        return
    left = await asyncio.to_thread(runtime.close)
    dispatcher = runtime.jobs.queue.attach(None)
    if isinstance(dispatcher, TaskiqDispatcher):
        dispatcher.close()
    if left:
        logging.shutdown()
        os._exit(0)
