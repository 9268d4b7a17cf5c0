"""The submission API's ``Idempotency-Key``: checked like typed text, then kept only as a digest.

A harness picks the key, and a misconfigured one may send its model key there; so a key that
looks like a credential is refused with the usual message, and whatever is accepted is
stored as its SHA-256 (hex), which is all a retry needs to find the first Test. The header
itself is never stored or logged.
"""

from __future__ import annotations

import hashlib

from benchmax.services.errors import Invalid
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
