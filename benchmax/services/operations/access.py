"""Who may operate BenchMax: active owners only, checked on the server for every call."""

from __future__ import annotations

from benchmax.models import User
from benchmax.services.errors import Forbidden, Invalid
from benchmax.services.moderation.policy import REASON_MIN, is_active_owner, refuse_secrets

MIN_REASON_LENGTH = REASON_MIN


def require_owner(user: User | None) -> User:
    if user is None or not is_active_owner(user):
        raise Forbidden("owners_only", "only owners may use operations")
    return user


def require_reason(reason: str) -> str:
    """The trimmed reason; at least ``MIN_REASON_LENGTH`` characters, like moderation's.

    It is kept in the audit log, so a pasted credential is refused like anywhere else.
    """
    reason = reason.strip()
    refuse_secrets(reason, field="reason", label="reason")
    if len(reason) < MIN_REASON_LENGTH:
        raise Invalid(
            "reason_too_short",
            f"give a reason of at least {MIN_REASON_LENGTH} characters",
            "reason",
        )
    return reason
