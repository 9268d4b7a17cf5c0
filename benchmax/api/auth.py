"""Who is calling the JSON API: a ``Bearer bmx_…`` API token, or a session token sent in the
``Authorization`` header or the ``__session`` cookie.

A browser attaches the cookie to any request aimed at the app, including one another site
triggers, so a state-changing request authenticated by the cookie alone must come from the
app's own origin (its ``Origin`` header). Tokens in a header cannot be sent that way.
"""

from __future__ import annotations

from sqlmodel import Session
from starlette.requests import Request

from benchmax.adapters.auth import API_TOKEN_PREFIX, SESSION_COOKIE, bearer_credential
from benchmax.context import AppContext
from benchmax.models import ApiToken, User
from benchmax.services import accounts, tokens
from benchmax.services.errors import Forbidden, Unauthenticated

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def has_credentials(request: Request) -> bool:
    """Whether the request carries any credential: an ``Authorization`` header or the
    session cookie. Such a request is answered ``private`` and without open CORS."""
    return bool(request.headers.get("authorization", "").strip()) or (
        SESSION_COOKIE in request.cookies
    )


def bearer_token(request: Request) -> str | None:
    """The request's Bearer credential (``""`` when empty), or None without one."""
    return bearer_credential(request.headers.get("authorization"))


def token_owner(session: Session, credential: str) -> tuple[ApiToken, User]:
    """The token and its account, or ``Unauthenticated`` for a mistyped or revoked token."""
    owned = tokens.token_owner(session, credential)
    if owned is None:
        raise Unauthenticated(
            "invalid_token", "This API token is not valid: it may be mistyped or revoked."
        )
    return owned


def request_user(ctx: AppContext, request: Request, session: Session) -> User | None:
    """The caller's account, None for a visitor; ``Unauthenticated`` for a bad token and
    ``Forbidden`` for a cookie-signed request from another site."""
    credential = bearer_token(request)
    if credential and credential.startswith(API_TOKEN_PREFIX):
        return token_owner(session, credential)[1]  # a suspended account: 403 by each policy
    settings = ctx.settings
    sent_header = bool(request.headers.get("authorization", "").strip())
    cookie_only = not sent_header and SESSION_COOKIE in request.cookies
    unsafe = request.method not in SAFE_METHODS
    if cookie_only and unsafe and request.headers.get("origin") != settings.app_origin:
        raise Forbidden("cross_origin", "Requests signed in by cookie must come from this site.")
    return accounts.current_user(session, ctx.verifier, request.headers, settings)
