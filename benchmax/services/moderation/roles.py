"""Role changes and account suspension, each written down as a moderation decision.

Who may grant what is decided once, in ``accounts.grant_role`` (owners anything, moderators
only the reviewer bit). This layer adds what a web request must never do: make an owner
(owners come from configuration), touch an owner, or act on oneself.
"""

from __future__ import annotations

from sqlmodel import Session

from benchmax.models import AccountStatus, Role, User
from benchmax.services import accounts
from benchmax.services.moderation.errors import ModerationError
from benchmax.services.moderation.policy import clean_reason, require_active, require_admin
from benchmax.services.moderation.records import record_decision


def _target(session: Session, actor: User, handle: str) -> User:
    user = accounts.find_user_by_handle(session, handle)
    if user is None:
        raise ModerationError(
            "user_not_found", f"No account has {accounts.named_handle(handle)}.", 404
        )
    if user.id == actor.id:
        raise ModerationError("own_account", "You cannot change your own account.", 403)
    if user.role == Role.OWNER:
        raise ModerationError(
            "owner_account", "Owners are set in configuration and cannot be changed here.", 403
        )
    return user


def change_role(session: Session, actor: User | None, handle: str, role: str, reason: str) -> User:
    """Give ``handle`` the role ``role`` (contributor, reviewer or moderator)."""
    admin = require_active(actor, "change roles")
    try:
        new_role = Role(role)
    except ValueError:
        raise ModerationError(
            "invalid_role", "Choose contributor, reviewer or moderator.", 400, "role"
        ) from None
    if new_role == Role.OWNER:
        raise ModerationError(
            "owner_role", "Owners come from configuration (BENCHMAX_OWNER_SUBJECTS).", 403, "role"
        )
    clean = clean_reason(reason)
    user = _target(session, admin, handle)
    previous = Role(user.role)
    if previous == new_role:
        raise ModerationError("unchanged", f"@{user.handle} is already a {new_role.value}.", 409)
    try:
        accounts.grant_role(session, user.handle, new_role, admin)
    except accounts.AccountPermissionError as error:
        raise ModerationError("not_allowed", error.message, 403) from None
    record_decision(
        session, admin, "user.role", ("user", user.id), clean, (previous.value, new_role.value)
    )
    return user


def _check_may_suspend(admin: User, user: User, verb: str) -> None:
    if user.role == Role.MODERATOR and admin.role != Role.OWNER:
        raise ModerationError("not_allowed", f"Only an owner can {verb} a moderator.", 403)


def suspend(session: Session, actor: User | None, handle: str, reason: str) -> User:
    """Stop an account from writing: no submissions, reports, disputes, reviews or tokens."""
    admin = require_admin(actor, "suspend accounts")
    clean = clean_reason(reason)
    user = _target(session, admin, handle)
    _check_may_suspend(admin, user, "suspend")
    if user.status == AccountStatus.SUSPENDED:
        raise ModerationError("already_suspended", f"@{user.handle} is already suspended.", 409)
    user.status = AccountStatus.SUSPENDED
    session.add(user)
    record_decision(
        session, admin, "user.suspend", ("user", user.id), clean, ("active", "suspended")
    )
    return user


def reinstate(session: Session, actor: User | None, handle: str, reason: str) -> User:
    admin = require_admin(actor, "reinstate accounts")
    clean = clean_reason(reason)
    user = _target(session, admin, handle)
    _check_may_suspend(admin, user, "reinstate")
    if user.status != AccountStatus.SUSPENDED:
        raise ModerationError("not_suspended", f"@{user.handle} is not suspended.", 409)
    user.status = AccountStatus.ACTIVE
    session.add(user)
    record_decision(
        session, admin, "user.reinstate", ("user", user.id), clean, ("suspended", "active")
    )
    return user
