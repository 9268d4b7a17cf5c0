"""The judge's messages: a pinned instruction, and evidence fenced and datamarked as data.

Spotlighting: untrusted text sits between two marker lines that carry a random nonce drawn
for this request only, and every space in it is replaced by a marker character
(datamarking), so the judge can tell, character by character, what is evidence and what is
instruction. Evidence cannot close the fence early because it cannot know the nonce, and any
marker character already in it is replaced first so it cannot forge datamarked text. The
reply must be strict JSON that echoes the nonce (``verdict.parse_verdict``): a judge that was
talked out of its instructions tends to drop the format, and then the sample fails.

The instruction is the snapshot's pinned template; ``{nonce}``, ``{marker}`` and
``{rubric_version}`` are its only placeholders.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass
from typing import Any

DATAMARK = "\u02c6"  # MODIFIER LETTER CIRCUMFLEX ACCENT, as in the spotlighting paper
FENCE_OPEN = "<<<EVIDENCE {nonce}>>>"
FENCE_CLOSE = "<<<END EVIDENCE {nonce}>>>"
_PLACEHOLDERS = ("{nonce}", "{marker}", "{rubric_version}")

SCHEMA_NAME = "benchmax_verdict"
VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "nonce": {"type": "string"},
        "score": {"type": "integer", "minimum": 0, "maximum": 100},
        "reasoning": {"type": "string"},
        "injection_suspected": {"type": "boolean"},
    },
    "required": ["nonce", "score", "reasoning", "injection_suspected"],
    "additionalProperties": False,
}


def canonical_sha256(value: object) -> str:
    """SHA-256 of canonical JSON (sorted keys, no spaces): how the output schema is pinned."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


OUTPUT_SCHEMA_SHA256 = canonical_sha256(VERDICT_SCHEMA)


def template_problem(template: str) -> str | None:
    """Why a prompt template cannot be pinned, or None when it can."""
    if "{nonce}" not in template or "{marker}" not in template:
        return "the prompt template must contain {nonce} and {marker}"
    stripped = template
    for placeholder in _PLACEHOLDERS:
        stripped = stripped.replace(placeholder, "")
    if "{" in stripped or "}" in stripped:
        return "the prompt template may use only {nonce}, {marker} and {rubric_version}"
    return None


def new_nonce() -> str:
    return secrets.token_hex(12)


def datamark(text: str) -> str:
    """Evidence text with every space marked, and no marker or fence it did not earn."""
    return text.replace(DATAMARK, "^").replace(" ", DATAMARK)


@dataclass(frozen=True)
class EvidenceSection:
    """One labelled piece of evidence: the label is ours, the text is untrusted."""

    label: str
    text: str


def build_messages(
    template: str,
    rubric_version: str,
    nonce: str,
    sections: list[EvidenceSection],
    image_urls: list[str],
) -> list[dict[str, Any]]:
    """The system instruction and the fenced user message for one request."""
    system = (
        template.replace("{nonce}", nonce)
        .replace("{marker}", DATAMARK)
        .replace("{rubric_version}", rubric_version)
    )
    body = "\n".join(f"## {section.label}\n{datamark(section.text)}" for section in sections)
    fenced = f"{FENCE_OPEN.format(nonce=nonce)}\n{body}\n{FENCE_CLOSE.format(nonce=nonce)}"
    content: list[dict[str, Any]] = [{"type": "text", "text": fenced}]
    content.extend({"type": "image_url", "image_url": {"url": url}} for url in image_urls)
    return [{"role": "system", "content": system}, {"role": "user", "content": content}]
