"""Operations: the owner's view of BenchMax's health and the actions to fix stuck work.

``dashboard`` is the /operations read model; ``record_sample`` is what the scheduler runs every
``metrics_interval_seconds``; ``requeue_job``/``discard_job`` are the dead-letter actions shared
by the page and ``benchmax jobs``. Nothing here imports Reflex.
"""

from benchmax.services.operations.access import (
    MIN_REASON_LENGTH,
    require_owner,
    require_reason,
)
from benchmax.services.operations.actions import CLI_ACTOR, discard_job, requeue_job
from benchmax.services.operations.dashboard import (
    AuditSummary,
    BackupSummary,
    Dashboard,
    DeadJob,
    dashboard,
    owner_dashboard,
)
from benchmax.services.operations.inventory import Inventory, PrefixUsage, take_inventory
from benchmax.services.operations.metrics import (
    SeriesPoint,
    TimeToPublic,
    percentile,
    record_sample,
    take_metrics_sample,
    time_to_public,
)

__all__ = [
    "CLI_ACTOR",
    "MIN_REASON_LENGTH",
    "AuditSummary",
    "BackupSummary",
    "Dashboard",
    "DeadJob",
    "Inventory",
    "PrefixUsage",
    "SeriesPoint",
    "TimeToPublic",
    "dashboard",
    "discard_job",
    "owner_dashboard",
    "percentile",
    "record_sample",
    "requeue_job",
    "require_owner",
    "require_reason",
    "take_inventory",
    "take_metrics_sample",
    "time_to_public",
]
