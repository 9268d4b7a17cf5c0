"""The Taskiq broker of this process, chosen by settings, and the dispatcher that feeds it.

Start a worker (production, ``BENCHMAX_QUEUE_BACKEND=redis``)::

    taskiq worker tasks.broker:broker tasks.run

and exactly one scheduler::

    taskiq scheduler tasks.scheduler:scheduler

With the embedded default (``memory``) there is no worker process: the web process calls
``configure_dispatcher(build_dispatcher())`` and jobs run inside it, and it runs
``tasks.scheduler.run_embedded_sweeper`` instead of a scheduler.
"""

from __future__ import annotations

from typing import Any

from taskiq import InMemoryBroker, TaskiqEvents

from benchmax.adapters.queue import (
    TaskiqDispatcher,
    build_broker,
    configure_dispatcher,
    current_dispatcher,
)
from benchmax.settings import get_settings

broker = build_broker(get_settings())


def build_dispatcher() -> TaskiqDispatcher:
    """The dispatcher this process should use to send jobs.

    In memory, jobs go to this very broker and run in this process. With Redis the dispatcher
    gets a broker of its own: it sends from its own event loop, and Redis connections must
    not be shared between loops (a worker listens on ``broker`` in its main loop).
    """
    if isinstance(broker, InMemoryBroker):
        import tasks.run  # noqa: F401 - registers the job task this broker will run

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
