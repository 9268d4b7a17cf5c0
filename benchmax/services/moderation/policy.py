"""Who may act, and what a written reason must look like. Checked on the server, every time.

The one place for both: moderation, account roles (``accounts.grant_role``) and operations
(``operations.access``) read their role rules and the reason length from here.
"""

from __future__ import annotations

import unicodedata

from benchmax.models import Role, User
from benchmax.services.errors import Forbidden, Invalid, Unauthenticated
from benchmax.services.safety import check_text_field

REASON_MIN, REASON_MAX = 10, 2000
ADMIN_ROLES = frozenset({Role.MODERATOR, Role.OWNER})
# Who may hand out which role: owners anything, moderators only the reviewer bit.
GRANTABLE = {
    Role.OWNER: frozenset(Role),
    Role.MODERATOR: frozenset({Role.CONTRIBUTOR, Role.REVIEWER}),
}


def is_admin(user: User | None) -> bool:
    """Moderators and owners; a suspended one keeps the role but may not use it."""
    return user is not None and user.role in ADMIN_ROLES


def can_moderate(user: User | None) -> bool:
    """An admin who may use the role now (not suspended)."""
    return is_admin(user) and user is not None and user.can_write


def is_active_owner(user: User | None) -> bool:
    """Operations are for owners only, and not while suspended."""
    return user is not None and user.role == Role.OWNER and user.can_write


def may_grant(actor: User, current: Role, new: Role) -> bool:
    """Whether an active ``actor`` may move an account from role ``current`` to ``new``."""
    allowed = GRANTABLE.get(Role(actor.role), frozenset())
    return actor.can_write and new in allowed and current in allowed


def require_active(actor: User | None, doing: str) -> User:
    """The actor, signed in and not suspended; ``doing`` completes "you cannot …"."""
    if actor is None:
        raise Unauthenticated("sign_in_required", f"Sign in to {doing}.")
    if not actor.can_write:
        raise Forbidden("account_suspended", f"Your account is suspended, so you cannot {doing}.")
    return actor


def require_admin(actor: User | None, doing: str) -> User:
    user = require_active(actor, doing)
    if not is_admin(user):
        raise Forbidden("not_allowed", f"Only moderators and owners can {doing}.")
    return user


def clean_text(
    raw: object, *, field: str, noun: str, minimum: int, maximum: int, label: str = ""
) -> str:
    """Trimmed NFC text between ``minimum`` and ``maximum`` characters, or a clear refusal.

    Control characters other than line breaks and tabs are dropped: the text is shown to
    other people, who should see what was written and nothing hidden. Text holding a
    secret is refused before the length rules, so a pasted key is called what it is
    (``label`` names the field in that message; by default the field's own name).
    """
    text = unicodedata.normalize("NFC", raw if isinstance(raw, str) else "")
    text = "".join(
        ch for ch in text if ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cf")
    ).strip()
    refuse_secrets(text, field=field, label=label or field.replace("_", " "))
    if len(text) < minimum:
        raise Invalid(f"{field}_too_short", f"{noun} must be at least {minimum} characters.", field)
    if len(text) > maximum:
        raise Invalid(f"{field}_too_long", f"{noun} must be at most {maximum} characters.", field)
    return text


def refuse_secrets(text: str, *, field: str, label: str) -> None:
    """Refuse written text that holds a credential; the message names the line, never the key.

    One small function for every reason, note and label a moderator, reviewer, reporter or
    contributor writes here, so the rule lives beside the other reason rules.
    """
    problem = check_text_field(label, text)
    if problem is not None:
        raise Invalid("secret_detected", problem, field)


def clean_reason(
    raw: object, *, label: str = "reason", noun: str = "The reason", minimum: int = REASON_MIN
) -> str:
    """A written reason: every decision needs one, and the contributor reads it.

    Text that must say more than a decision's reason (an appeal, or a moderator's reason that
    becomes a correcting review) raises ``minimum`` and names itself in ``noun``.
    """
    return clean_text(
        raw, field="reason", noun=noun, minimum=minimum, maximum=REASON_MAX, label=label
    )
