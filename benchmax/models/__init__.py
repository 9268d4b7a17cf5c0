"""Every table, imported in one place so metadata is complete for Alembic and the app."""

from benchmax.models.audit import AuditAction, AuditEvent, audit
from benchmax.models.catalog import (
    CatalogModel,
    Harness,
    LabelKind,
    LabelMapping,
    ModelFamily,
    ModelVersion,
)
from benchmax.models.evidence import CancelledUpload, EvidenceFile, EvidenceKind, EvidenceState
from benchmax.models.job import Job, JobState, WorkerBeat
from benchmax.models.judge import (
    JUDGE_APPEND_ONLY_TABLES,
    JudgeBudgetDay,
    JudgeCalibrationRun,
    JudgeContributorDay,
    JudgeReviewSample,
    JudgeSample,
    JudgeSnapshot,
    JudgeState,
    SamplePurpose,
    SampleStatus,
)
from benchmax.models.leaderboard import (
    LeaderboardPolicy,
    LeaderboardRow,
    LeaderboardSnapshot,
    LeaderboardSupersession,
    SnapshotStatus,
)
from benchmax.models.moderation import (
    Appeal,
    CaseState,
    Dispute,
    ModerationAction,
    ModerationDecision,
    ModerationHold,
    Report,
    ReportReason,
)
from benchmax.models.operations import BackupRecord, MetricSample, RedactionDay
from benchmax.models.preview import (
    PreviewAccountDay,
    PreviewArtifact,
    PreviewArtifactKind,
    PreviewBudgetDay,
    PreviewEvaluation,
    PreviewRetryDay,
    PreviewState,
)
from benchmax.models.prompt_group import PromptAlias, PromptBand, PromptSignature
from benchmax.models.prompt_key import PROMPT_KEY_VERSION, normalise_prompt, prompt_key
from benchmax.models.review import Review, ReviewerKind
from benchmax.models.test import ReviewState, SourceVisibility, Test, TestState
from benchmax.models.token import ApiToken, ApiTokenUse
from benchmax.models.user import AccountStatus, Role, User

APPEND_ONLY_TABLES = ("review", "moderation_decision", "audit_event")
# Append-only since migration 0011; published snapshots and their rows are frozen there too.
SHOWCASE_APPEND_ONLY_TABLES = ("leaderboard_policy", "leaderboard_supersession", "prompt_alias")

__all__ = [
    "APPEND_ONLY_TABLES",
    "JUDGE_APPEND_ONLY_TABLES",
    "PROMPT_KEY_VERSION",
    "SHOWCASE_APPEND_ONLY_TABLES",
    "AccountStatus",
    "ApiToken",
    "ApiTokenUse",
    "Appeal",
    "AuditAction",
    "AuditEvent",
    "BackupRecord",
    "CancelledUpload",
    "CaseState",
    "CatalogModel",
    "Dispute",
    "EvidenceFile",
    "EvidenceKind",
    "EvidenceState",
    "Harness",
    "Job",
    "JobState",
    "JudgeBudgetDay",
    "JudgeCalibrationRun",
    "JudgeContributorDay",
    "JudgeReviewSample",
    "JudgeSample",
    "JudgeSnapshot",
    "JudgeState",
    "LabelKind",
    "LabelMapping",
    "LeaderboardPolicy",
    "LeaderboardRow",
    "LeaderboardSnapshot",
    "LeaderboardSupersession",
    "MetricSample",
    "ModelFamily",
    "ModelVersion",
    "ModerationAction",
    "ModerationDecision",
    "ModerationHold",
    "PreviewAccountDay",
    "PreviewArtifact",
    "PreviewArtifactKind",
    "PreviewBudgetDay",
    "PreviewEvaluation",
    "PreviewRetryDay",
    "PreviewState",
    "PromptAlias",
    "PromptBand",
    "PromptSignature",
    "RedactionDay",
    "Report",
    "ReportReason",
    "Review",
    "ReviewState",
    "ReviewerKind",
    "Role",
    "SamplePurpose",
    "SampleStatus",
    "SnapshotStatus",
    "SourceVisibility",
    "Test",
    "TestState",
    "User",
    "WorkerBeat",
    "audit",
    "normalise_prompt",
    "prompt_key",
]
