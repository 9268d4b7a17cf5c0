"""Who may operate BenchMax: active owners only, checked on the server for every call."""

from __future__ import annotations

from benchmax.models import User
from benchmax.services.moderation.policy import REASON_MIN, is_active_owner
from benchmax.services.safety import check_text_field

MIN_REASON_LENGTH = REASON_MIN


class NotAllowedError(PermissionError):
    """The viewer is not an active owner."""


class ReasonError(ValueError):
    """An operator action needs a written reason."""


def require_owner(user: User | None) -> User:
    if user is None or not is_active_owner(user):
        raise NotAllowedError("only owners may use operations")
    return user


def require_reason(reason: str) -> str:
    """The trimmed reason; at least ``MIN_REASON_LENGTH`` characters, like moderation's.

    It is kept in the audit log, so a pasted credential is refused like anywhere else.
    """
    reason = reason.strip()
    problem = check_text_field("reason", reason)
    if problem is not None:
        raise ReasonError(problem)
    if len(reason) < MIN_REASON_LENGTH:
        raise ReasonError(f"give a reason of at least {MIN_REASON_LENGTH} characters")
    return reason
