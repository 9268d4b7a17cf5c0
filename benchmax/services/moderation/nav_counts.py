"""The numbers beside the header's Moderation and Operations links.

The header is drawn on every page, so each number is one indexed ``COUNT`` and nothing more:
open reports, disputes and appeals and Tests under an open hold for moderators and owners (what
``queues`` lists as waiting on a person, without its costlier injection-finding scan), and
dead-lettered jobs for owners. Anyone else gets zeros without a query being made.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func
from sqlmodel import Session, col, select

from benchmax.models import Appeal, CaseState, Dispute, Job, JobState, ModerationHold, Report, User
from benchmax.services.moderation.policy import can_moderate, is_active_owner


@dataclass(frozen=True)
class NavCounts:
    """``moderation``: reports + disputes + appeals + held Tests still open; ``operations``:
    dead jobs.

    ``may_moderate``/``may_operate`` say whether the link is shown at all, so a zero count
    for someone allowed still shows the link (with nothing waiting) and a stranger sees none.
    """

    may_moderate: bool = False
    may_operate: bool = False
    moderation: int = 0
    operations: int = 0


def _count(session: Session, statement: object) -> int:
    return int(session.exec(statement).one() or 0)  # type: ignore[call-overload]


def open_moderation_count(session: Session) -> int:
    """Open reports, disputes and appeals and Tests with an open hold: four ``COUNT``s."""
    cases = [
        select(func.count()).select_from(model).where(model.state == CaseState.OPEN)
        for model in (Report, Dispute, Appeal)
    ]
    held = select(func.count(func.distinct(col(ModerationHold.test_id)))).where(
        ModerationHold.state == CaseState.OPEN
    )
    return sum(_count(session, statement) for statement in (*cases, held))


def dead_job_count(session: Session) -> int:
    """Jobs in the dead-letter list, the one /operations queue an owner must act on."""
    return _count(session, select(func.count()).select_from(Job).where(Job.state == JobState.DEAD))


def nav_counts(session: Session, viewer: User | None) -> NavCounts:
    """What the header shows ``viewer``; the role rules are the services' own, so a link
    appears exactly when the page behind it would let the viewer in."""
    may_moderate = can_moderate(viewer)
    may_operate = is_active_owner(viewer)
    return NavCounts(
        may_moderate=may_moderate,
        may_operate=may_operate,
        moderation=open_moderation_count(session) if may_moderate else 0,
        operations=dead_job_count(session) if may_operate else 0,
    )
