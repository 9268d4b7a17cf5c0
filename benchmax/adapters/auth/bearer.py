"""Reading ``Authorization: Bearer <credential>``: the one parser every caller uses.

The scheme is case-insensitive (RFC 9110) and stray spaces around the header or the
credential are dropped, so the API, the submission routes and the session verifier agree on
what a header carries.
"""

from __future__ import annotations


def bearer_credential(authorization: str | None) -> str | None:
    """The credential of a Bearer header (``""`` when it has none), or None for other schemes."""
    scheme, _, credential = (authorization or "").strip().partition(" ")
    return credential.strip() if scheme.lower() == "bearer" else None
