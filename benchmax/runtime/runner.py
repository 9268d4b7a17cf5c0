"""The job runtime of a process that runs jobs, and the dispatcher that feeds it.

Handlers are synchronous database code, so each message is handed to ``run_job`` (or a
periodic job's service) in a thread and the event loop stays free to receive more. A judge
request may take many seconds, so AI reviews get threads of their own and safety scans and
publishing never wait behind them (publication must not depend on the judge); a preview runs
a browser for up to a couple of minutes, so previews run one at a time per process, beside
the other jobs, never in front of them.

The runtime also writes the process's heartbeat (``benchmax.runtime.heartbeat``) while it
lives, so the sweeper releases this process's jobs within seconds of its death.

The runtime is built once by whoever starts the process (the web app's lifespan, a Taskiq
worker's start-up hook, a test) from the process's ``JobContext`` and closed when it stops:
running jobs get the grace period to finish, and the leases of those that do not are released
(``services.jobs.release``) so the sweeper re-sends them at once instead of after a lease.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from taskiq import InMemoryBroker

from benchmax.adapters.queue import RUN_JOB_TASK, TaskiqDispatcher, build_broker
from benchmax.runtime.heartbeat import Heartbeat
from benchmax.runtime.periodic import PeriodicJob
from benchmax.services.jobs import JobContext, run_job
from benchmax.services.jobs.release import release_leases
from benchmax.services.judge.review import JUDGE_REVIEW, job_kind
from benchmax.services.preview.jobs import PREVIEW_EVALUATE

logger = logging.getLogger(__name__)

ACK_TIMEOUT_SECONDS = 10.0


def worker_id() -> str:
    """This process in a job's lease: ``host:pid``."""
    return f"{socket.gethostname()}:{os.getpid()}"


class JobRuntime:
    """A process's job context and the thread pools its jobs run in."""

    def __init__(self, jobs: JobContext) -> None:
        self.jobs = jobs
        self._pools = {
            JUDGE_REVIEW: ThreadPoolExecutor(
                max_workers=jobs.settings.judge_concurrency, thread_name_prefix="benchmax-judge"
            ),
            PREVIEW_EVALUATE: ThreadPoolExecutor(
                max_workers=jobs.settings.preview_slots, thread_name_prefix="benchmax-preview"
            ),
        }
        # Jobs running now, counted across the event loops that hand them over.
        self._in_flight = 0
        self._idle = threading.Condition()
        self.in_flight: set[int] = set()
        """Ids received and not yet finished here (the embedded poll does not send them again)."""
        self._heartbeat = Heartbeat(jobs, worker_id())

    async def run_job(
        self, job_id: int, acknowledge: Callable[[], Coroutine[Any, Any, None]] | None = None
    ) -> str:
        """Run job ``job_id`` in the pool its kind needs; the job's outcome.

        ``acknowledge`` (a queue message's ack) is awaited once the claim has committed, from
        the pool's thread, so a message whose claim failed is never acknowledged.
        """
        with self._idle:
            self._in_flight += 1
        self.in_flight.add(job_id)
        try:
            return await self._run_job(job_id, acknowledge)
        finally:
            self.in_flight.discard(job_id)
            with self._idle:
                self._in_flight -= 1
                self._idle.notify_all()

    async def _run_job(
        self, job_id: int, acknowledge: Callable[[], Coroutine[Any, Any, None]] | None
    ) -> str:
        settings = self.jobs.settings
        loop = asyncio.get_running_loop()
        on_claimed = None
        if acknowledge is not None:

            def on_claimed() -> None:
                asyncio.run_coroutine_threadsafe(acknowledge(), loop).result(ACK_TIMEOUT_SECONDS)

        own_threads = settings.judge_enabled or settings.preview_sandbox != "off"
        kind = await asyncio.to_thread(job_kind, self.jobs, job_id) if own_threads else None
        pool = self._pools.get(kind or "")
        return await loop.run_in_executor(pool, run_job, job_id, self.jobs, worker_id(), on_claimed)

    async def run_periodic(self, job: PeriodicJob) -> int:
        """Run one periodic job now; how many things it did."""
        return await asyncio.to_thread(job.run, self.jobs)

    def close(self, grace_seconds: float = 0.0) -> int:
        """Give running jobs ``grace_seconds`` to finish, then release the leases of those
        still running; how many still run (their threads end when their handlers return,
        and can record nothing over the next attempt)."""
        with self._idle:
            self._idle.wait_for(lambda: self._in_flight == 0, timeout=grace_seconds)
            left = self._in_flight
        for pool in self._pools.values():
            pool.shutdown(wait=False, cancel_futures=True)
        if left:
            with self.jobs.session() as session:
                released = release_leases(session, worker_id())
            logger.warning(
                "stopping with %d jobs still running: released %d leases for the sweeper",
                left,
                released,
            )
        self._heartbeat.stop()
        return left


def start_dispatcher(runtime: JobRuntime) -> TaskiqDispatcher:
    """The dispatcher this process sends jobs with, started now.

    In memory, jobs go to a broker of this process's own that runs them with ``runtime``. With
    Redis the dispatcher gets a broker of its own: it sends from its own event loop, and Redis
    connections must not be shared between loops (a worker listens on its broker in its main
    loop).
    """
    broker = build_broker(runtime.jobs.settings)
    if isinstance(broker, InMemoryBroker):

        async def run_job_here(job_id: int) -> str:
            return await runtime.run_job(job_id)

        broker.register_task(run_job_here, task_name=RUN_JOB_TASK)
    return TaskiqDispatcher(broker)
