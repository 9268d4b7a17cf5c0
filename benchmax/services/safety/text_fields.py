"""The secret check for typed-in text (prompt, output, settings, notes).

It runs when a draft is saved and on submit, before anything is stored, so a pasted key is
refused at the door instead of being cleaned up later.
"""

from __future__ import annotations

from benchmax.services.safety.secrets import find_secrets, refusal


def check_text_field(field_label: str, value: str) -> str | None:
    """A message for the contributor if ``value`` holds a secret, else ``None``.

    ``field_label`` is the field's everyday name ("prompt", "notes"); the message reads
    "Line 3 of the prompt looks like an Anthropic API key. Remove it ...".
    """
    findings = find_secrets(value)
    if not findings:
        return None
    return refusal(findings[0], f"the {field_label}", others=len(findings) - 1)
