"""Role changes and account suspension, each written down as a moderation decision.

Who may grant what is decided once, in ``accounts.grant_role`` (owners anything, moderators
only the reviewer bit). This layer adds what a web request must never do: make an owner
(owners come from configuration), touch an owner, or act on oneself.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func
from sqlmodel import Session, col, select

from benchmax.models import AccountStatus, ModerationAction, Role, User
from benchmax.services import accounts
from benchmax.services.errors import Conflict, Forbidden, Invalid, NotFound
from benchmax.services.moderation.policy import clean_reason, require_active, require_admin
from benchmax.services.moderation.records import record_decision


def _target(session: Session, actor: User, handle: str) -> User:
    user = accounts.find_user_by_handle(session, handle)
    if user is None:
        raise NotFound("user_not_found", f"No account has {accounts.named_handle(handle)}.")
    if user.id == actor.id:
        raise Forbidden("own_account", "You cannot change your own account.")
    if user.role == Role.OWNER:
        raise Forbidden(
            "owner_account", "Owners are set in configuration and cannot be changed here."
        )
    return user


def change_role(session: Session, actor: User | None, handle: str, role: str, reason: str) -> User:
    """Give ``handle`` the role ``role`` (contributor, reviewer or moderator)."""
    admin = require_active(actor, "change roles")
    try:
        new_role = Role(role)
    except ValueError:
        raise Invalid(
            "invalid_role", "Choose contributor, reviewer or moderator.", "role"
        ) from None
    if new_role == Role.OWNER:
        raise Forbidden(
            "owner_role", "Owners come from configuration (BENCHMAX_OWNER_SUBJECTS).", "role"
        )
    clean = clean_reason(reason)
    user = _target(session, admin, handle)
    previous = Role(user.role)
    if previous == new_role:
        raise Conflict("unchanged", f"@{user.handle} is already a {new_role.value}.")
    accounts.grant_role(session, user.handle, new_role, admin)  # Forbidden past the actor's reach
    record_decision(
        session,
        admin,
        ModerationAction.USER_ROLE,
        ("user", user.id),
        clean,
        (previous.value, new_role.value),
    )
    return user


def _set_status(
    session: Session, actor: User | None, handle: str, reason: str, suspend: bool
) -> User:
    """Suspend or reinstate ``handle``; only an owner may do either to a moderator."""
    verb = "suspend" if suspend else "reinstate"
    admin = require_admin(actor, f"{verb} accounts")
    clean = clean_reason(reason)
    user = _target(session, admin, handle)
    if user.role == Role.MODERATOR and admin.role != Role.OWNER:
        raise Forbidden("not_allowed", f"Only an owner can {verb} a moderator.")
    if (user.status == AccountStatus.SUSPENDED) == suspend:
        code, state = ("already_suspended", "already") if suspend else ("not_suspended", "not")
        raise Conflict(code, f"@{user.handle} is {state} suspended.")
    before, after = AccountStatus.ACTIVE, AccountStatus.SUSPENDED
    if not suspend:
        before, after = after, before
    user.status = after
    session.add(user)
    action = ModerationAction.USER_SUSPEND if suspend else ModerationAction.USER_REINSTATE
    record_decision(session, admin, action, ("user", user.id), clean, (before.value, after.value))
    return user


def suspend(session: Session, actor: User | None, handle: str, reason: str) -> User:
    """Stop an account from writing: no submissions, reports, disputes, reviews or tokens."""
    return _set_status(session, actor, handle, reason, suspend=True)


def reinstate(session: Session, actor: User | None, handle: str, reason: str) -> User:
    """Let a suspended account write again."""
    return _set_status(session, actor, handle, reason, suspend=False)


@dataclass(frozen=True)
class AccountMatch:
    """An account as the moderation search shows it, so a moderator sees whom they act on."""

    handle: str
    display_name: str
    role: str
    status: str


def search_accounts(
    session: Session, actor: User | None, query: str, limit: int = 10
) -> list[AccountMatch]:
    """Accounts whose handle starts with ``query`` (case-insensitive), shortest first."""
    require_admin(actor, "search accounts")
    prefix = query.strip().lstrip("@").lower()[:32]
    if not prefix:
        return []
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    rows = session.exec(
        select(User)
        .where(func.lower(User.handle).like(escaped + "%", escape="\\"))
        .order_by(func.length(User.handle), col(User.handle))
        .limit(limit)
    ).all()
    return [AccountMatch(u.handle, u.display_name, str(u.role), str(u.status)) for u in rows]
