"""The one table of periodic jobs, read by the Taskiq scheduler and by the embedded loop.

Each row is a task name, the service it runs (given the process's ``JobContext``; it answers
how many things it did) and how often. ``tasks.run`` registers one scheduled Taskiq task per
row; ``benchmax.runtime.embedded.run_periodic_jobs`` runs the same rows inside the web process
when there is no scheduler. A new periodic job is one new row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from benchmax.services.exports import export_if_due
from benchmax.services.jobs import JobContext, sweep
from benchmax.services.judge.calibration import recalibrate_when_due
from benchmax.services.leaderboard.jobs import request_scheduled_snapshot  # registers the job
from benchmax.services.operations import take_metrics_sample
from benchmax.services.pipeline import cleanup_quarantine  # also registers the pipeline jobs
from benchmax.services.prompts.indexing import index_new_prompts
from benchmax.services.search.maintenance import MERGE_INTERVAL, merge_search_index
from benchmax.services.submissions.expiry import expire_drafts
from benchmax.settings import Settings

QUARANTINE_CLEANUP_INTERVAL = timedelta(hours=1)
# How often to look whether the active judge's weekly re-calibration is due.
JUDGE_RECALIBRATION_CHECK = timedelta(hours=1)


@dataclass(frozen=True)
class PeriodicJob:
    task_name: str
    run: Callable[[JobContext], int]
    every: Callable[[Settings], float]  # seconds between runs
    what: str  # for log lines: "job sweep failed (...)"
    report: str = ""  # logged with the count when a run did something; empty: say nothing


PERIODIC_JOBS = (
    PeriodicJob(
        "benchmax.metrics_sample",
        take_metrics_sample,
        lambda settings: settings.metrics_interval_seconds,
        "metric sample",
    ),
    PeriodicJob(
        "benchmax.cleanup_quarantine",
        cleanup_quarantine,
        lambda _settings: QUARANTINE_CLEANUP_INTERVAL.total_seconds(),
        "quarantine clean-up",
    ),
    PeriodicJob(
        "benchmax.expire_drafts",
        expire_drafts,
        lambda settings: settings.draft_expiry_interval_seconds,
        "draft expiry",
        "deleted %d expired drafts",
    ),
    PeriodicJob(
        "benchmax.export_open_data",
        export_if_due,
        lambda settings: settings.export_interval_seconds,
        "open-data export",
        "published %d open-data export",
    ),
    PeriodicJob(
        "benchmax.leaderboard_snapshot",
        request_scheduled_snapshot,
        # A positive tick even when snapshots are off (0): the run itself then does nothing.
        # The request is keyed by its time slot, so a restart inside one slot publishes once.
        lambda settings: settings.leaderboard_snapshot_interval_seconds or 3600,
        "leaderboard snapshot request",
    ),
    PeriodicJob(
        "benchmax.prompt_index",
        index_new_prompts,
        lambda settings: settings.prompt_index_interval_seconds,
        "prompt indexing",
        "indexed %d new prompts for similar-prompt search",
    ),
    PeriodicJob(
        "benchmax.search_index_merge",
        merge_search_index,
        lambda _settings: MERGE_INTERVAL.total_seconds(),
        "search index merge",
        "merged the search index in %d steps",
    ),
    PeriodicJob(
        "benchmax.judge_recalibrate",
        recalibrate_when_due,
        lambda _settings: JUDGE_RECALIBRATION_CHECK.total_seconds(),
        "judge re-calibration",
        "re-calibrated %d judge snapshot",
    ),
    PeriodicJob(
        "benchmax.sweep",
        sweep,
        lambda settings: settings.sweep_interval_seconds,
        "job sweep",
        "job sweep re-sent %d jobs",
    ),
)
