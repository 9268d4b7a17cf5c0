"""The secret check for everything people type that BenchMax stores.

The wizard's fields (prompt, output, settings, notes, labels), review reasoning, report
details, dispute reasons, moderators' and operators' reasons, display names, handles, API
token names, evidence file names and the Idempotency-Key header all pass through
``check_text_field`` on the server before anything is written, so a pasted key is refused at
the door instead of being cleaned up later. Each service raises its own error with the
message; the value itself is never quoted, stored or logged.
"""

from __future__ import annotations

from benchmax.services.safety.secrets import find_secrets_json_aware, refusal


def check_text_field(field_label: str, value: str) -> str | None:
    """A message for the contributor if ``value`` holds a secret, else ``None``.

    ``field_label`` is the field's everyday name ("prompt", "report details"); the message
    reads "Line 3 of the prompt looks like an Anthropic API key. Remove it ...". Any field
    may hold pasted JSON, so its string escapes are decoded for matching too.
    """
    findings = find_secrets_json_aware(value)
    if not findings:
        return None
    return refusal(findings[0], f"the {field_label}", others=len(findings) - 1)
