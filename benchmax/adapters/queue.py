"""The queue port: how a committed job id reaches a worker.

The database is the source of truth for work (see ``benchmax.services.jobs``); the queue only
carries job ids so workers wake up promptly. Anything sent here may be lost, duplicated or
delivered late without losing work: the sweeper re-sends due rows and a worker that receives
an id it cannot claim does nothing.

``JobDispatcher`` is the port. ``TaskiqDispatcher`` is the implementation: it sends the
``benchmax.run_job`` task through a Taskiq broker — ``InMemoryBroker`` in the embedded default
(the job runs in this process) or ``RedisStreamBroker`` in production (a worker acks the
message only once its claim has committed, so a failed claim's message is re-delivered).

Each process's context holds a ``DispatcherSlot`` (``AppContext.queue``, the same object as
its ``JobContext.queue``); the process's start-up hook attaches the running dispatcher to it.
Tests attach a real one pointing at their own broker or stream.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from collections.abc import Sequence
from typing import Any, Protocol

from taskiq import AsyncBroker, InMemoryBroker
from taskiq.kicker import AsyncKicker
from taskiq.serializers import JSONSerializer
from taskiq_redis import RedisStreamBroker

from benchmax.settings import Settings

logger = logging.getLogger(__name__)

RUN_JOB_TASK = "benchmax.run_job"
"""The one task name every job message uses; its only argument is the job id."""
RUN_JOB_LABELS = {"ack_type": "manual"}
"""A job message is acknowledged by the task itself once its claim has committed (see
``tasks.run``), never before: a worker killed, or a database cut, between receiving and
claiming leaves the message to be redelivered after ``queue_redeliver_seconds``."""

# Acked entries stay in a Redis stream until trimmed. Trimming can only drop messages the
# sweeper would re-send anyway, so a generous approximate cap bounds memory safely.
_STREAM_MAXLEN = 100_000
_CONSUMER_GROUP = "benchmax"
_CONNECT_TIMEOUT_SECONDS = 5.0
_READ_BLOCK_MS = 1000


class JobDispatcher(Protocol):
    """Sends job ids to whatever runs them. Must never raise: a failed send is only a delay."""

    def send(self, job_ids: Sequence[int]) -> None: ...


def build_broker(settings: Settings) -> AsyncBroker:
    """The Taskiq broker the settings choose, always with the JSON serializer (never pickle)."""
    broker: AsyncBroker
    if settings.queue_backend == "redis":
        redeliver_ms = settings.queue_redeliver_seconds * 1000
        broker = RedisStreamBroker(
            url=settings.redis_url,
            queue_name=settings.queue_name,
            consumer_group_name=_CONSUMER_GROUP,
            # "0": a group created after messages were sent still reads them.
            consumer_id="0",
            maxlen=_STREAM_MAXLEN,
            # Messages are acknowledged as soon as their claim commits, so one unacked for
            # a few seconds had its claim fail or its worker die first (or waits in a busy
            # worker's backlog): any worker may take it over; a duplicate claim is a no-op.
            idle_timeout=redeliver_ms,
            unacknowledged_lock_timeout=float(settings.queue_redeliver_seconds),
            socket_connect_timeout=_CONNECT_TIMEOUT_SECONDS,
            # How long one read waits for a message; a stopping worker notices its signal
            # only between reads, and that delay comes out of the supervisor's margin.
            xread_block=_READ_BLOCK_MS,
        )
    else:
        broker = InMemoryBroker()
    return broker.with_serializer(JSONSerializer())


def _event_loop_running_here() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class TaskiqDispatcher:
    """Sends ``RUN_JOB_TASK`` messages from a private event loop on a background thread.

    Commits happen in very different places: a Reflex event handler or Starlette route (an
    event loop is running on this thread and must not be blocked), a worker's handler thread,
    or a plain CLI call. A loop owned by the dispatcher serves them all the same way, and keeps
    the broker's async Redis connections bound to a single loop. Callers without a running loop
    wait (bounded) until the message is handed over, so a short-lived CLI does not exit first;
    callers on an event loop never wait.

    With an ``InMemoryBroker`` the job itself runs on this loop (handlers run in threads), so
    the broker must have ``RUN_JOB_TASK`` registered.
    """

    def __init__(self, broker: AsyncBroker, *, send_timeout_seconds: float = 10.0) -> None:
        self._broker = broker
        self._send_timeout = send_timeout_seconds
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="benchmax-dispatch", daemon=True
        )
        self._thread.start()

    def send(self, job_ids: Sequence[int]) -> None:
        if not job_ids:
            return
        future = asyncio.run_coroutine_threadsafe(self._send_all(list(job_ids)), self._loop)
        if _event_loop_running_here():
            return
        try:
            future.result(timeout=self._send_timeout)
        except TimeoutError:
            logger.warning("sending jobs %s timed out; the sweeper will re-send them", job_ids)

    async def _send_all(self, job_ids: list[int]) -> None:
        kicker: AsyncKicker[Any, Any] = AsyncKicker(
            RUN_JOB_TASK, self._broker, labels=dict(RUN_JOB_LABELS)
        )
        for job_id in job_ids:
            try:
                await kicker.kiq(job_id)
            except Exception as exc:
                # The class name only: a transport error message may echo connection details.
                logger.warning(
                    "job %s not sent (%s); the sweeper will re-send it",
                    job_id,
                    type(exc.__cause__ or exc).__name__,
                )

    def close(self, timeout_seconds: float = 10.0, *, shutdown_broker: bool = True) -> None:
        """Stop the loop (and the broker, unless someone else still uses it).

        Messages not yet handed over are dropped, and in-memory jobs still running are
        abandoned: their leases expire and the sweeper sends them again.
        """
        try:
            if shutdown_broker:
                asyncio.run_coroutine_threadsafe(self._broker.shutdown(), self._loop).result(
                    timeout=timeout_seconds
                )
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout_seconds)
            if not self._thread.is_alive():
                self._loop.close()


class DispatcherSlot:
    """A context's job dispatcher: a stable object that forwards to the one attached.

    The dispatcher owns an event-loop thread, so it is started inside the serving process
    (after any fork), later than the context is built. Until a start-up hook attaches one (or
    after it detaches it) sends are dropped with a warning; the committed job rows wait for the
    sweeper, so nothing is lost.
    """

    def __init__(self) -> None:
        self._dispatcher: JobDispatcher | None = None

    def attach(self, dispatcher: JobDispatcher | None) -> JobDispatcher | None:
        """Forward to ``dispatcher`` from now on; returns the one attached before."""
        previous, self._dispatcher = self._dispatcher, dispatcher
        return previous

    @property
    def attached(self) -> JobDispatcher | None:
        return self._dispatcher

    def send(self, job_ids: Sequence[int]) -> None:
        if self._dispatcher is None:
            logger.warning(
                "no job dispatcher in this process; jobs %s run when a process that runs "
                "jobs finds them due (the embedded poll, or the sweeper)",
                job_ids,
            )
            return
        self._dispatcher.send(job_ids)


def worker_argv(
    workers: int = 1, *, grace_seconds: float, modules: Sequence[str] = ()
) -> list[str]:
    """The command that starts Taskiq workers on this project's broker and job task (and
    ``modules``: job kinds of one's own).

    On SIGTERM or SIGINT a worker stops taking messages and waits ``grace_seconds`` for its
    running tasks (Taskiq's default is to wait for ever); its shutdown hook then releases the
    leases of the jobs still running (``tasks.run``). A further signal ends it at once.
    """
    return [
        sys.executable, "-m", "taskiq", "worker", "tasks.broker:broker", "tasks.run", *modules,
        "--workers", str(workers),
        "--wait-tasks-timeout", str(grace_seconds),
        "--hardkill-count", "1",
    ]  # fmt: skip
