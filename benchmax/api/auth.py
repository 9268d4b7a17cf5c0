"""Who is calling the JSON API: a ``Bearer bmx_…`` API token, or a session token sent in the
``Authorization`` header or the ``__session`` cookie.

A browser attaches the cookie to any request aimed at the app, including one another site
triggers, so a state-changing request authenticated by the cookie alone must come from the
app's own origin (its ``Origin`` header). Tokens in a header cannot be sent that way.
"""

from __future__ import annotations

from sqlmodel import Session
from starlette.requests import Request

from benchmax.adapters.auth import API_TOKEN_PREFIX
from benchmax.context import AppContext
from benchmax.models import User
from benchmax.services import accounts, tokens

SESSION_COOKIE = "__session"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class ApiAuthError(Exception):
    """Credentials were presented and are unusable; answered as is, never as a visitor."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(code)
        self.status = status
        self.code = code
        self.message = message


def request_user(ctx: AppContext, request: Request, session: Session) -> User | None:
    """The caller's account, None for a visitor, or ApiAuthError for a bad token or CSRF."""
    authorization = request.headers.get("authorization", "").strip()
    scheme, _, credential = authorization.partition(" ")
    credential = credential.strip()
    if scheme.lower() == "bearer" and credential.startswith(API_TOKEN_PREFIX):
        owned = tokens.token_owner(session, credential)
        if owned is None:
            raise ApiAuthError(
                401, "invalid_token", "This API token is not valid: it may be mistyped or revoked."
            )
        return owned[1]  # a suspended account is refused by each action's policy, with 403
    settings = ctx.settings
    cookie_only = not authorization and SESSION_COOKIE in request.cookies
    unsafe = request.method not in SAFE_METHODS
    if cookie_only and unsafe and request.headers.get("origin") != settings.app_origin:
        raise ApiAuthError(
            403, "cross_origin", "Requests signed in by cookie must come from this site."
        )
    return accounts.current_user(session, ctx.verifier, request.headers, settings)
