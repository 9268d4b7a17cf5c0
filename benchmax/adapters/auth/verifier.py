"""One verification path for every session token, local or Clerk.

Both sign-in backends are checked by clerk-backend-api's ``authenticate_request`` with a PEM
public key (networkless), the allowed authorized parties and session tokens only; the backends
differ only in which public key is passed in. Keeping a single path means the embedded default
exercises the exact code production relies on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from clerk_backend_api.security import authenticate_request
from clerk_backend_api.security.types import AuthenticateRequestOptions
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from benchmax.adapters.auth.bearer import bearer_credential

# The cookie a browser carries its session token in (Clerk's name, kept by the local issuer).
SESSION_COOKIE = "__session"
# Bearer tokens with this prefix are BenchMax API tokens (services/tokens.py), never sessions.
API_TOKEN_PREFIX = "bmx_"  # noqa: S105 - a public prefix, not a secret


@dataclass(frozen=True)
class SessionClaims:
    subject: str
    session_id: str
    expires_at: datetime

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> SessionClaims | None:
        """Clerk checks signature, time and azp but not that these claims exist; we need them."""
        subject, session_id, expires = payload.get("sub"), payload.get("sid"), payload.get("exp")
        if not (
            isinstance(subject, str) and subject and isinstance(session_id, str) and session_id
        ):
            return None
        if not isinstance(expires, int) or isinstance(expires, bool):
            return None
        try:
            expires_at = datetime.fromtimestamp(expires, UTC)
        except (OverflowError, OSError, ValueError):
            return None
        return cls(subject, session_id, expires_at)


@dataclass(frozen=True)
class _Request:
    """The smallest object ``authenticate_request`` accepts: something with headers."""

    headers: Mapping[str, str]


def _clerk_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The two headers Clerk reads, under the exact names it looks up.

    clerk-backend-api reads ``Authorization`` and ``cookie`` case-sensitively, while ASGI and
    Reflex hand us lower-case names and test clients often use title case.
    """
    picked: dict[str, str] = {}
    for name, value in headers.items():
        lowered = name.lower()
        if lowered == "authorization":
            # Clerk strips only the exact text "Bearer "; the scheme is case-insensitive.
            credential = bearer_credential(value)
            picked["Authorization"] = f"Bearer {credential}" if credential is not None else value
        elif lowered == "cookie":
            picked["cookie"] = value
    return picked


def _is_api_token(authorization: str | None) -> bool:
    return authorization is not None and authorization.startswith("Bearer " + API_TOKEN_PREFIX)


class SessionVerifier:
    """Verifies session tokens signed by the key whose public half is ``jwt_key``."""

    def __init__(self, jwt_key: str, authorized_parties: list[str]) -> None:
        # Fail at start-up on a bad key rather than signing every request out silently.
        jwt_key = jwt_key.strip()
        try:
            loaded = serialization.load_pem_public_key(jwt_key.encode("ascii"))
        except (ValueError, UnicodeEncodeError) as error:
            raise ValueError("the session verification key is not a PEM public key") from error
        if not isinstance(loaded, rsa.RSAPublicKey):
            raise ValueError("the session verification key must be an RSA public key")
        if not authorized_parties:
            raise ValueError("at least one authorized party (the app origin) is required")
        self._options = AuthenticateRequestOptions(
            jwt_key=jwt_key,
            authorized_parties=list(authorized_parties),
            accepts_token=["session_token"],
        )

    def verify_headers(self, headers: Mapping[str, str]) -> SessionClaims | None:
        """Claims of the session in the Authorization header or ``__session`` cookie, if valid."""
        picked = _clerk_headers(headers)
        if _is_api_token(picked.get("Authorization")):
            return None
        state = authenticate_request(_Request(picked), self._options)
        if not state.is_signed_in or state.payload is None:
            return None
        return SessionClaims.from_payload(state.payload)

    def verify_token(self, token: str) -> SessionClaims | None:
        """Claims of a bare session token, e.g. one read from a cookie by the web framework."""
        return self.verify_headers({"Authorization": f"Bearer {token}"})
