"""API tokens for harnesses and scripts.

A token is ``bmx_`` plus 40 URL-safe random characters (240 bits). The plaintext is returned
once at creation and never stored: the database keeps its SHA-256 (a fast hash is right here —
the input is random, not a password) and the last four characters so people can tell their
tokens apart. Creation and revocation are audited with ids only.

Functions flush but never commit: the caller owns the transaction.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import unicodedata
from datetime import timedelta

from sqlmodel import Session, col, select

from benchmax.adapters.auth import API_TOKEN_PREFIX
from benchmax.models import ApiToken, AuditAction, User, audit
from benchmax.models._base import as_utc, utcnow
from benchmax.services.accounts import has_hidden_characters
from benchmax.services.errors import Conflict, Forbidden, Invalid, NotFound
from benchmax.services.moderation.policy import refuse_secrets

TOKEN_NAME_MAX = 80
MAX_ACTIVE_TOKENS = 20
_TOKEN_RE = re.compile(re.escape(API_TOKEN_PREFIX) + r"[A-Za-z0-9_-]{40}")
# last_used_at is for people ("used 3 minutes ago"); writing it on every request is waste.
_LAST_USED_RESOLUTION = timedelta(minutes=1)


def _hash(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode("ascii")).hexdigest()


def validate_token_name(raw: str) -> str:
    """The trimmed name, or ``Invalid``: names are shown in lists, so no invisible tricks."""
    name = unicodedata.normalize("NFC", raw).strip()
    if not name:
        raise Invalid(
            "token_name_missing",
            "Give the token a name, e.g. the harness that will use it.",
            "name",
        )
    # Before the length rule, so a pasted key is called a key rather than "too long".
    refuse_secrets(name, field="name", label="token name")
    if len(name) > TOKEN_NAME_MAX:
        raise Invalid(
            "token_name_invalid", f"Token names are at most {TOKEN_NAME_MAX} characters.", "name"
        )
    if has_hidden_characters(name):
        raise Invalid(
            "token_name_invalid",
            "Token names cannot contain control or invisible characters.",
            "name",
        )
    return name


def list_tokens(session: Session, user: User) -> list[ApiToken]:
    """The user's tokens that still work, newest first."""
    statement = (
        select(ApiToken)
        .where(ApiToken.user_id == user.id, col(ApiToken.revoked_at).is_(None))
        .order_by(col(ApiToken.created_at).desc(), col(ApiToken.id))
    )
    return list(session.exec(statement))


def create_token(session: Session, user: User, name: str) -> tuple[ApiToken, str]:
    """A new token row and its plaintext, which the caller shows once and then forgets."""
    if not user.can_write:
        raise Forbidden("account_suspended", "Suspended accounts cannot create API tokens.")
    clean_name = validate_token_name(name)
    if len(list_tokens(session, user)) >= MAX_ACTIVE_TOKENS:
        raise Conflict(
            "too_many_tokens",
            f"You already have {MAX_ACTIVE_TOKENS} active tokens; revoke one you no longer use.",
        )
    plaintext = API_TOKEN_PREFIX + secrets.token_urlsafe(30)
    token = ApiToken(
        user_id=user.id, name=clean_name, token_hash=_hash(plaintext), last_four=plaintext[-4:]
    )
    session.add(token)
    audit(session, AuditAction.API_TOKEN_CREATED, ("api_token", token.id), actor_id=user.id)
    session.flush()
    return token, plaintext


def find_api_token(session: Session, plaintext: str) -> ApiToken | None:
    """The live (unrevoked) token row for ``plaintext``, or None; marks it used.

    The API needs the row itself (its rate limit is per token); ``token_owner`` adds the
    account.
    """
    if not _TOKEN_RE.fullmatch(plaintext):
        return None
    digest = _hash(plaintext)
    token = session.exec(select(ApiToken).where(ApiToken.token_hash == digest)).first()
    # The lookup is by a hash of 240 random bits, so its timing reveals nothing useful; the
    # constant-time compare guards against a database that matches loosely (collation, case).
    if token is None or not hmac.compare_digest(token.token_hash, digest):
        return None
    if token.revoked_at is not None:
        return None
    now = utcnow()
    last_used = as_utc(token.last_used_at) if token.last_used_at else None
    if last_used is None or now - last_used >= _LAST_USED_RESOLUTION:
        token.last_used_at = now
        session.add(token)
        session.flush()
    return token


def token_owner(session: Session, plaintext: str) -> tuple[ApiToken, User] | None:
    """The live token for ``plaintext`` and its account, suspended or not; None otherwise.

    A suspended account's token still says who is calling, so each action can refuse it
    with a 403 that names the suspension rather than a 401 that blames the token.
    """
    token = find_api_token(session, plaintext)
    user = session.get(User, token.user_id) if token else None
    if token is None or user is None:
        return None
    return token, user


def revoke_token(session: Session, user: User, token_id: str) -> ApiToken:
    """Revoke one of the user's own tokens; someone else's looks exactly like a missing one."""
    token = session.get(ApiToken, token_id)
    if token is None or token.user_id != user.id:
        raise NotFound("token_not_found", "No such token.")
    if token.revoked_at is None:
        token.revoked_at = utcnow()
        session.add(token)
        audit(session, AuditAction.API_TOKEN_REVOKED, ("api_token", token.id), actor_id=user.id)
        session.flush()
    return token
