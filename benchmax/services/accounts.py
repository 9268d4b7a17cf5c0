"""Accounts: handles, first sign-in, owner bootstrap and role grants.

A user row is keyed by the auth subject the verifier returns (``local|<handle>`` for the local
issuer, Clerk's ``user_...`` id in production); the handle is the public name in URLs. Handles
are plain ASCII on purpose: anything else invites look-alike impersonation (a Cyrillic
letter drawn like ``a``, the Kelvin sign that lower-cases to ``k``, fullwidth letters).

Functions flush but never commit: the caller owns the transaction.
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from collections.abc import Mapping

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from benchmax.adapters.auth import LOCAL_SUBJECT_PREFIX, SessionVerifier, local_subject
from benchmax.models import AuditAction, Role, User, audit
from benchmax.services.errors import Conflict, Forbidden, Invalid, NotFound
from benchmax.services.moderation.policy import may_grant, refuse_secrets
from benchmax.services.safety import check_text_field
from benchmax.settings import Settings

HANDLE_MIN, HANDLE_MAX = 3, 32
HANDLE_RULES = (
    f"{HANDLE_MIN} to {HANDLE_MAX} characters: lowercase letters a to z, digits, '-' and '_', "
    "starting and ending with a letter or digit"
)
_HANDLE_RE = re.compile(rf"[a-z0-9](?:[a-z0-9_-]{{{HANDLE_MIN - 2},{HANDLE_MAX - 2}}})[a-z0-9]")

# Names that would pass for staff or for a route, and names software treats as "nobody".
RESERVED_HANDLES = frozenset(
    {
        "about", "account", "admin", "administrator", "anonymous", "api", "assets", "auth",
        "benchmax", "clerk", "contributor", "healthz", "help", "leaderboard", "local", "login",
        "logout", "me", "methodology", "mod", "moderation", "moderator", "models", "none",
        "null", "operations", "owner", "privacy", "reviewer", "root", "security", "settings",
        "sign-in", "sign-out", "sign-up", "signin", "signout", "signup", "staff", "static",
        "submit", "support", "system", "terms", "tests", "undefined", "user", "users",
    }
)  # fmt: skip

DISPLAY_NAME_MAX = 80
_GENERATED_SUFFIX_ATTEMPTS = 8


def validate_handle(raw: str) -> str:
    """The canonical handle for ``raw`` (trimmed, lower-cased), or ``Invalid`` saying why not."""
    handle = raw.strip()
    if not handle:
        raise Invalid("handle_missing", "Choose a handle.", "handle")
    # As typed and upper-cased: handles are stored lower-case, which hides a key whose
    # alphabet is upper case (an AWS key ID) from the rules but not from anyone reading it.
    refuse_secrets(handle, field="handle", label="handle")
    refuse_secrets(handle.upper(), field="handle", label="handle")
    # Checked before lower-casing: some non-ASCII letters lower-case to ASCII ones.
    if not handle.isascii():
        raise Invalid("handle_invalid", f"Handles use plain ASCII only: {HANDLE_RULES}.", "handle")
    handle = handle.lower()
    if not HANDLE_MIN <= len(handle) <= HANDLE_MAX:
        raise Invalid(
            "handle_invalid", f"Handles are {HANDLE_MIN} to {HANDLE_MAX} characters long.", "handle"
        )
    if not _HANDLE_RE.fullmatch(handle):
        raise Invalid("handle_invalid", f"That handle is not allowed: {HANDLE_RULES}.", "handle")
    if handle in RESERVED_HANDLES:
        raise Invalid(
            "handle_reserved", f"'{handle}' is reserved; choose another handle.", "handle"
        )
    return handle


def named_handle(raw: str) -> str:
    """How a message names a handle someone typed: quoted when it is a valid handle, else
    "that handle" — the input may be anything, a pasted key included, and is never echoed."""
    try:
        return f"the handle '{validate_handle(raw)}'"
    except Invalid:
        return "that handle"


def has_hidden_characters(text: str) -> bool:
    """Names shown to other people must look like what they are: no control, zero-width,
    bidi-override or line-separator characters."""
    return any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in text)


def _validate_display_name(raw: str, fallback: str) -> str:
    name = unicodedata.normalize("NFC", raw).strip()
    refuse_secrets(name, field="display_name", label="display name")  # public and stored
    if has_hidden_characters(name):
        raise Invalid(
            "display_name_invalid",
            "Display names cannot contain control or invisible characters.",
            "display_name",
        )
    if len(name) > DISPLAY_NAME_MAX:
        raise Invalid(
            "display_name_invalid",
            f"Display names are at most {DISPLAY_NAME_MAX} characters.",
            "display_name",
        )
    return name or fallback


def get_user(session: Session, user_id: str) -> User | None:
    """The account with this id, for callers that carry an id across a thread or request."""
    return session.get(User, user_id)


def find_user_by_handle(session: Session, handle: str) -> User | None:
    """The account with this handle; handles are stored lower-case, so lookups are too."""
    return session.exec(select(User).where(User.handle == handle.strip().lower())).first()


def _user_by_subject(session: Session, subject: str) -> User | None:
    return session.exec(select(User).where(User.auth_subject == subject)).first()


def _set_role(session: Session, user: User, role: Role, actor: User | None) -> None:
    """Change the role and audit it; setting the role a user already has records nothing."""
    previous = Role(user.role)  # the column hands back plain text
    if previous != role:
        user.role = role
        session.add(user)
        audit(
            session,
            AuditAction.USER_ROLE_GRANTED,
            ("user", user.id),
            actor_id=actor.id if actor else None,
            detail={"role": role.value, "previous": previous.value},
        )
        session.flush()


def _apply_owner_bootstrap(session: Session, user: User, settings: Settings) -> User:
    """Owners come from configuration; checked at every sign-in so a new entry takes effect."""
    if user.auth_subject in settings.owner_subjects:
        _set_role(session, user, Role.OWNER, None)
    return user


def _insert(session: Session, user: User) -> User | None:
    """Insert ``user``; None when a concurrent sign-in took the subject or handle first."""
    try:
        with session.begin_nested():
            session.add(user)
    except IntegrityError:
        return None
    return user


def get_or_create_local_user(
    session: Session, handle: str, display_name: str, settings: Settings
) -> User:
    """The local-issuer account for ``handle``, created on first use."""
    handle = validate_handle(handle)
    subject = local_subject(handle)
    user = _user_by_subject(session, subject)
    if user is None:
        if find_user_by_handle(session, handle) is not None:
            raise Conflict("handle_taken", f"The handle '{handle}' is taken.", "handle")
        name = _validate_display_name(display_name, handle)
        created = _insert(session, User(handle=handle, display_name=name, auth_subject=subject))
        user = created or _user_by_subject(session, subject)
        if user is None:
            raise Conflict("handle_taken", f"The handle '{handle}' is taken.", "handle")
    return _apply_owner_bootstrap(session, user, settings)


def _handle_candidates(hint: str | None) -> list[str]:
    """Handles to try for a new Clerk account: the hint made valid, then with random suffixes.

    Only the part before an ``@`` is used, so an e-mail address never becomes a public name.
    """
    cleaned = ""
    # A hint is an e-mail address or user name from the identity provider: never trusted to
    # be free of a pasted key, so one that holds a credential is dropped.
    if hint and hint.isascii() and check_text_field("handle", hint) is None:
        local_part = hint.split("@", 1)[0].lower()
        cleaned = re.sub(r"[^a-z0-9_]+", "-", local_part).strip("-_")[: HANDLE_MAX - 5]
        cleaned = cleaned.strip("-_")
    usable = len(cleaned) >= HANDLE_MIN and cleaned not in RESERVED_HANDLES
    base = cleaned if usable else "user"
    suffixed = [f"{base}-{secrets.token_hex(2)}" for _ in range(_GENERATED_SUFFIX_ATTEMPTS)]
    return [base, *suffixed] if usable else suffixed


def user_for_subject(
    session: Session, subject: str, settings: Settings, *, handle_hint: str | None = None
) -> User:
    """The account behind a verified subject, created on first sight.

    Local subjects carry their handle; other subjects get ``handle_hint`` made valid and unique,
    or a generated ``user-xxxx`` handle the person can live with.
    """
    user = _user_by_subject(session, subject)
    if user is not None:
        return _apply_owner_bootstrap(session, user, settings)
    if subject.startswith(LOCAL_SUBJECT_PREFIX):
        handle = subject.removeprefix(LOCAL_SUBJECT_PREFIX)
        return get_or_create_local_user(session, handle, "", settings)
    for handle in _handle_candidates(handle_hint):
        if find_user_by_handle(session, handle) is not None:
            continue
        created = _insert(session, User(handle=handle, display_name=handle, auth_subject=subject))
        user = created or _user_by_subject(session, subject)
        if user is not None:
            return _apply_owner_bootstrap(session, user, settings)
    raise Conflict(
        "handle_unavailable", "Could not pick a free handle; please try signing in again."
    )


def grant_role(session: Session, handle: str, role: Role | str, actor: User | None = None) -> User:
    """Give the user with ``handle`` a role, audited.

    ``actor`` None means an operator at the command line, who is trusted. A signed-in actor
    must be an active owner, or an active moderator changing only the reviewer bit of a plain
    contributor or reviewer.
    """
    try:
        new_role = Role(role)
    except ValueError:
        choices = ", ".join(r.value for r in Role)
        raise Invalid(
            "invalid_role", f"Unknown role '{role}'; choose one of {choices}.", "role"
        ) from None
    user = find_user_by_handle(session, handle)
    if user is None:
        raise NotFound("user_not_found", f"No account has {named_handle(handle)}.")
    if actor is not None and not may_grant(actor, Role(user.role), new_role):
        raise Forbidden("not_allowed", "You are not allowed to grant that role.")
    _set_role(session, user, new_role, actor)
    return user


def session_user(
    session: Session, verifier: SessionVerifier, token: str, settings: Settings
) -> User | None:
    """The signed-in user behind a ``__session`` cookie's token, or None for a visitor: what
    a page (its state, and the status its HTML is served with) takes the viewer to be."""
    claims = verifier.verify_token(token) if token else None
    if claims is None:
        return None
    return user_for_subject(session, claims.subject, settings)


def current_user(
    session: Session, verifier: SessionVerifier, headers: Mapping[str, str], settings: Settings
) -> User | None:
    """The signed-in user for a request's headers, or None for a visitor."""
    claims = verifier.verify_headers(headers)
    if claims is None:
        return None
    return user_for_subject(session, claims.subject, settings)
