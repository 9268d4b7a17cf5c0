"""Strict reading of a judge's reply: exactly the schema's four fields and the right nonce.

Anything else — prose around the JSON, a code fence, a missing or extra field, a score out of
range or given as text, a nonce from another request — is a failed sample with a code, never
a guess at what the judge meant.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from benchmax.services.judge.prompt import VERDICT_SCHEMA

REASONING_MAX = 4000
_FIELDS = frozenset(VERDICT_SCHEMA["required"])


@dataclass(frozen=True)
class Verdict:
    score: int
    reasoning: str
    injection_suspected: bool


class VerdictError(ValueError):
    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def parse_verdict(content: str | None, nonce: str) -> Verdict:
    """The verdict in ``content``, which must echo ``nonce``; raises ``VerdictError``."""
    if content is None or not content.strip():
        raise VerdictError("reply_empty")
    try:
        data = json.loads(content)
    except ValueError as exc:
        raise VerdictError("reply_not_json") from exc
    if not isinstance(data, dict) or set(data) != _FIELDS:
        raise VerdictError("reply_schema")
    score, reasoning, suspected = data["score"], data["reasoning"], data["injection_suspected"]
    if not isinstance(data["nonce"], str) or data["nonce"] != nonce:
        raise VerdictError("reply_nonce_mismatch")
    if not isinstance(score, int) or isinstance(score, bool) or not 0 <= score <= 100:
        raise VerdictError("reply_schema")
    if not isinstance(reasoning, str) or not reasoning.strip():
        raise VerdictError("reply_schema")
    if not isinstance(suspected, bool):
        raise VerdictError("reply_schema")
    return Verdict(score, reasoning.strip()[:REASONING_MAX], suspected)
