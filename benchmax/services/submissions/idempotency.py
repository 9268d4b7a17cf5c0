"""The submission API's ``Idempotency-Key``: checked like typed text, then kept only as a digest.

A harness picks the key, and a misconfigured one may send its model key there; so a key that
looks like a credential is refused with the usual message, and whatever is accepted is
stored as its SHA-256 (hex), which is all a retry needs to find the first Test. The header
itself is never stored or logged. Beside it the Test keeps the request's fingerprint, so a
retry of the same request answers with the first Test and a different request under the same
key is refused.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from sqlmodel import Session, select

from benchmax.models import Test
from benchmax.services.errors import Conflict, Invalid
from benchmax.services.safety import check_text_field

MAX_KEY_CHARS = 200
HEADER = "Idempotency-Key"


def idempotency_digest(key: str) -> str:
    """What ``Test.idempotency_key`` holds for ``key``; the 0006 migration hashed old rows so."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def checked_idempotency_digest(raw: str) -> str:
    """The digest of a usable header value, or ``Invalid`` saying what is wrong.

    The errors name no field: a header is not one of the form's fields.
    """
    key = raw.strip()
    problem = check_text_field(f"{HEADER} header", key)
    if problem is not None:
        raise Invalid("secret_detected", problem)
    if not key or len(key) > MAX_KEY_CHARS or not key.isascii() or not key.isprintable():
        raise Invalid(
            "invalid_idempotency_key",
            f"{HEADER} must be 1 to {MAX_KEY_CHARS} printable ASCII characters.",
        )
    return idempotency_digest(key)


@dataclass(frozen=True)
class PriorSubmission:
    """The Test a contributor's earlier request with the same key created."""

    test_id: str
    fingerprint: str


def prior_submission(session: Session, user_id: str, digest: str) -> PriorSubmission | None:
    row = session.exec(
        select(Test.id, Test.idempotency_fingerprint).where(
            Test.contributor_id == user_id, Test.idempotency_key == digest
        )
    ).first()
    return PriorSubmission(row[0], row[1]) if row else None


def replayed(prior: PriorSubmission, fingerprint: str) -> str:
    """The first Test's id for a retry of the same request; ``Conflict`` for another request
    under the same key."""
    if prior.fingerprint != fingerprint:
        raise Conflict(
            "idempotency_key_reused",
            f"This {HEADER} was already used for a different submission. Use a new key "
            "for a new Test.",
        )
    return prior.test_id
