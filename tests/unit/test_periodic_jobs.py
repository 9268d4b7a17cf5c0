"""One table of periodic jobs: the scheduler's tasks are exactly its rows."""

from __future__ import annotations

from benchmax.runtime.periodic import PERIODIC_JOBS
from tasks.broker import SETTINGS
from tasks.scheduler import scheduler


def test_every_row_is_a_scheduled_task_at_its_interval() -> None:
    scheduled = {
        name: task.labels.get("schedule")
        for name, task in scheduler.broker.get_all_tasks().items()
        if task.labels.get("schedule")
    }

    assert scheduled == {
        job.task_name: [{"interval": int(job.every(SETTINGS))}] for job in PERIODIC_JOBS
    }
    assert {job.task_name for job in PERIODIC_JOBS} >= {"benchmax.sweep", "benchmax.metrics_sample"}
