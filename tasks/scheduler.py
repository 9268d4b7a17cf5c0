"""Periodic work (the table in ``benchmax.runtime.periodic``: the job sweep, the quarantine
clean-up, expired drafts and /operations metric samples) on a Taskiq scheduler.

Production runs exactly one ``taskiq scheduler tasks.scheduler:scheduler`` (or, the same,
``python -m tasks.scheduler``); it sends ``benchmax.sweep`` every ``sweep_interval_seconds``
and a worker runs it. If Redis is down the tick is lost and the next one sweeps: a sweep only
ever re-sends, so a skipped one delays work and a doubled one is harmless.

The embedded default has no scheduler process; the web app runs the same table from its
lifespan instead (``benchmax.runtime.embedded``).
"""

from __future__ import annotations

import sys

from taskiq import TaskiqScheduler
from taskiq.schedule_sources import LabelScheduleSource

import tasks.run  # noqa: F401 - registers the scheduled tasks on the broker
from tasks.broker import broker

scheduler = TaskiqScheduler(broker, sources=[LabelScheduleSource(broker)])


if __name__ == "__main__":
    from taskiq.cli.scheduler.cmd import SchedulerCMD

    SchedulerCMD().exec(["tasks.scheduler:scheduler", *sys.argv[1:]])
