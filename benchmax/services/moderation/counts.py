"""How much work is waiting, for the header's Moderation and Operations links.

A handful of indexed counts, cheap enough for every page load. What a role may not see comes
back as zero (moderation) or ``None`` (operations), so a header can never show a count to
someone the queue itself would refuse.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func
from sqlmodel import Session, col, select

from benchmax.models import Appeal, CaseState, Dispute, Job, JobState, ModerationHold, Report, Role
from benchmax.services.moderation.policy import ADMIN_ROLES

_CASES: tuple[type[Report] | type[Dispute] | type[Appeal] | type[ModerationHold], ...] = (
    Report,
    Dispute,
    Appeal,
    ModerationHold,
)


@dataclass(frozen=True)
class OperationsCounts:
    """Jobs that need an owner (dead) and jobs still waiting to run (the backlog)."""

    dead_jobs: int
    waiting_jobs: int


@dataclass(frozen=True)
class QueueCounts:
    can_moderate: bool = False
    reports: int = 0
    disputes: int = 0
    appeals: int = 0
    holds: int = 0
    operations: OperationsCounts | None = None

    @property
    def moderation_total(self) -> int:
        return self.reports + self.disputes + self.appeals + self.holds


def _open(
    session: Session, model: type[Report] | type[Dispute] | type[Appeal] | type[ModerationHold]
) -> int:
    return int(session.exec(select(func.count()).where(col(model.state) == CaseState.OPEN)).one())


def _jobs(session: Session, *states: JobState) -> int:
    query = (
        select(func.count()).select_from(Job).where(col(Job.state).in_([s.value for s in states]))
    )
    return int(session.exec(query).one())


def open_queue_counts(session: Session, role: Role | str | None) -> QueueCounts:
    """Open cases for moderators and owners; job counts for owners only. The caller passes
    the role of an account that may use it now (a suspended one passes ``None``)."""
    if role is None or Role(role) not in ADMIN_ROLES:
        return QueueCounts()
    reports, disputes, appeals, holds = (_open(session, model) for model in _CASES)
    operations = (
        OperationsCounts(
            dead_jobs=_jobs(session, JobState.DEAD),
            waiting_jobs=_jobs(session, JobState.PENDING, JobState.RUNNING),
        )
        if Role(role) == Role.OWNER
        else None
    )
    return QueueCounts(True, reports, disputes, appeals, holds, operations)
