"""Durable jobs: the database row is the work; the queue only says "look at row N".

A change that needs background work calls ``enqueue`` in its own transaction; the job id is
sent to a worker only after that commits. The worker's ``run_job`` claims the row with a
lease, runs the handler registered for its kind (``@job_handler``), and marks it done, or
schedules a retry with exponential backoff, or — after ``max_attempts`` — leaves it ``dead``
for an operator to ``requeue`` or ``discard``. ``sweep`` re-sends anything due or abandoned,
so lost messages, killed workers and queue outages delay work but never lose it. Rows and
messages carry ids and error codes only, never submission content.
"""

from benchmax.services.jobs.admin import (
    JobCount,
    discard,
    job_counts,
    list_jobs,
    oldest_waiting_age,
    requeue,
)
from benchmax.services.jobs.enqueue import enqueue, send_after_commit
from benchmax.services.jobs.registry import (
    Handler,
    JobContext,
    JobError,
    error_code,
    get_handler,
    job_handler,
)
from benchmax.services.jobs.runner import (
    ClaimedJob,
    JobOutcome,
    backoff_seconds,
    claim_job,
    run_job,
)
from benchmax.services.jobs.sweeper import LEASE_EXPIRED, sweep

__all__ = [
    "LEASE_EXPIRED",
    "ClaimedJob",
    "Handler",
    "JobContext",
    "JobCount",
    "JobError",
    "JobOutcome",
    "backoff_seconds",
    "claim_job",
    "discard",
    "enqueue",
    "error_code",
    "get_handler",
    "job_counts",
    "job_handler",
    "list_jobs",
    "oldest_waiting_age",
    "requeue",
    "run_job",
    "send_after_commit",
    "sweep",
]
