"""The Taskiq broker of this process, chosen by settings.

Start a worker (production, ``BENCHMAX_QUEUE_BACKEND=redis``)::

    taskiq worker tasks.broker:broker tasks.run

and exactly one scheduler::

    taskiq scheduler tasks.scheduler:scheduler

The task functions and the dispatcher that feeds this broker live in ``tasks.run``, which
imports this module and never the other way round. With the embedded default (``memory``)
there is no worker process: the web process (``benchmax.lifespan``) starts the dispatcher
and jobs run inside it, and it runs ``tasks.scheduler.run_embedded_sweeper`` instead of a
scheduler.
"""

from __future__ import annotations

from benchmax.adapters.queue import build_broker
from benchmax.settings import get_settings

broker = build_broker(get_settings())
