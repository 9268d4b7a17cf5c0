"""The Taskiq broker of a worker or scheduler process, chosen by its settings.

Start a worker (production, ``BENCHMAX_QUEUE_BACKEND=redis``)::

    taskiq worker tasks.broker:broker tasks.run

and exactly one scheduler::

    taskiq scheduler tasks.scheduler:scheduler

This module is the process's entry point: it reads the settings once (``SETTINGS``), and the
worker's start-up hook in ``tasks.run`` builds the application context from them. The task
functions live in ``tasks.run``, which imports this module and never the other way round. With
the embedded default (``memory``) there is no worker process: the web process
(``benchmax.lifespan``) runs the jobs and the periodic table itself (``benchmax.runtime``).
"""

from __future__ import annotations

from benchmax.adapters.queue import build_broker
from benchmax.settings import get_settings

SETTINGS = get_settings()
broker = build_broker(SETTINGS)
