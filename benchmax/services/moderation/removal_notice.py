"""What moderators and owners read on a removed Test's page: that it is not public, and why.

Everyone else still gets the not-found page for a removed Test (``detail_view`` decides that),
and its files stay 404 on the user-content origin for everyone, staff included, because that
service checks the Test's state on every request. Staff open removed Tests from
``/moderation`` to weigh a restore or an appeal, so they see the Test with the decision that
took it down rather than a 404 that reads as if it never existed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session

from benchmax.models import Test, TestState, User
from benchmax.models._base import as_utc, is_public_id
from benchmax.services.moderation.policy import can_moderate
from benchmax.services.moderation.records import latest_removals

_NO_REASON = "No reason was recorded."


@dataclass(frozen=True)
class RemovalNotice:
    """The latest removal of a Test: the moderator's own reason, when and by whom."""

    reason: str
    removed_at: datetime | None
    moderator_handle: str  # empty when no decision row names one


def removal_notice(session: Session, test_id: str, viewer: User | None) -> RemovalNotice | None:
    """The removal of ``test_id`` for an active moderator or owner; None for anyone else and
    for a Test that is not removed (what they see then is the ordinary page)."""
    if not can_moderate(viewer) or not is_public_id(test_id):
        return None
    test = session.get(Test, test_id)
    if test is None or test.state != TestState.REMOVED:
        return None
    decision = latest_removals(session, [test.id]).get(test.id)
    if decision is None:  # removed before decisions were recorded
        removed_at = as_utc(test.removed_at) if test.removed_at else None
        return RemovalNotice(test.failure_reason or _NO_REASON, removed_at, "")
    moderator = session.get(User, decision.moderator_id)
    return RemovalNotice(
        decision.reason or _NO_REASON,
        as_utc(decision.created_at),
        moderator.handle if moderator else "",
    )
