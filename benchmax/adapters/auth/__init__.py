"""Sign-in: a local issuer for the embedded default and Clerk in production, one verifier.

``build_verifier`` is the only place that decides which public key session tokens are checked
against; everything downstream sees ``SessionClaims`` and never knows which backend signed.
"""

from __future__ import annotations

from benchmax.adapters.auth.bearer import bearer_credential
from benchmax.adapters.auth.local_issuer import (
    LOCAL_SUBJECT_PREFIX,
    LocalIssuer,
    LocalIssuerRefusedError,
    local_subject,
)
from benchmax.adapters.auth.verifier import (
    API_TOKEN_PREFIX,
    SESSION_COOKIE,
    SessionClaims,
    SessionVerifier,
)
from benchmax.settings import Settings

__all__ = [
    "API_TOKEN_PREFIX",
    "LOCAL_SUBJECT_PREFIX",
    "SESSION_COOKIE",
    "LocalIssuer",
    "LocalIssuerRefusedError",
    "SessionClaims",
    "SessionVerifier",
    "bearer_credential",
    "build_verifier",
    "local_subject",
]


def build_verifier(settings: Settings) -> SessionVerifier:
    """The verifier for the configured backend: same code, different public key."""
    if settings.auth_backend == "clerk":
        if not settings.clerk_jwt_key.strip():
            raise ValueError(
                "BENCHMAX_CLERK_JWT_KEY (Clerk's PEM public key) is required: sessions are "
                "verified without calling Clerk"
            )
        # .env files often carry the PEM on one line with escaped newlines.
        jwt_key = settings.clerk_jwt_key.replace("\\n", "\n")
    else:
        jwt_key = LocalIssuer(settings).public_pem
    return SessionVerifier(jwt_key, settings.resolved_authorized_parties)
