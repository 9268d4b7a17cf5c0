"""Validating what a contributor types: lengths, formats and the secret check.

Every draft field is a string on the way in (a form, a multipart body); ``clean_fields``
turns a mapping of them into column values or raises the first ``Invalid`` in field
order. It never touches the database, so a refusal stores nothing.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from benchmax.models import SourceVisibility
from benchmax.services.errors import Invalid
from benchmax.services.safety import check_text_field

# The declared setup: what the wizard's second step asks, in the order it asks it.
SETUP_FIELDS = (
    "model_label",
    "model_version_label",
    "harness_label",
    "reasoning_label",
    "settings_text",
    "attempts",
)
DRAFT_FIELDS = (
    "prompt",
    *SETUP_FIELDS,
    "notes",
    "output_text",
    "title",
    "source_visibility",
)
# Declared references that only a batch sets (the wizard's single Test never shows them): the
# bench gateway's call id of an imported panel seat.
REFERENCE_FIELDS = ("gateway_call_id",)
STORED_FIELDS = (*DRAFT_FIELDS, *REFERENCE_FIELDS)
REQUIRED_FIELDS = ("prompt", "model_label", "harness_label", "reasoning_label")
# The reasoning settings the wizard suggests and the feed's filter hints at. The field stays
# free text: tools name their settings differently, and the label is what was declared.
REASONING_CHOICES = ("none", "low", "medium", "high", "max", "unknown")
REASONING_HINT = ", ".join(REASONING_CHOICES) + "…"
MAX_ATTEMPTS = 1_000_000
# A call id is an identifier, not prose: letters, digits and . _ : - only, so nothing shown
# beside a Test as a reference can be markup, a link or a line break.
MAX_CALL_ID_CHARS = 128
_CALL_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:-")


@dataclass(frozen=True)
class _Text:
    label: str  # the everyday name used in messages ("the prompt", "the model name")
    max_chars: int
    single_line: bool


_TEXT_FIELDS: dict[str, _Text] = {
    "prompt": _Text("prompt", 100_000, single_line=False),
    "model_label": _Text("model name", 200, single_line=True),
    "model_version_label": _Text("model version", 200, single_line=True),
    "harness_label": _Text("harness", 200, single_line=True),
    "reasoning_label": _Text("reasoning setting", 100, single_line=True),
    # Settings and notes are prose about the run; the output is what the model returned,
    # which can be long, and bigger outputs belong in a text file.
    "settings_text": _Text("settings", 20_000, single_line=False),
    "notes": _Text("notes", 20_000, single_line=False),
    "output_text": _Text("output", 500_000, single_line=False),
    "title": _Text("title", 200, single_line=True),
}


def text_limits() -> dict[str, tuple[int, bool]]:
    """Each text field's most characters and whether it is a single line: what the API's
    document states, so it says what ``clean_fields`` enforces."""
    return {name: (spec.max_chars, spec.single_line) for name, spec in _TEXT_FIELDS.items()}


# Tab, line feed and carriage return are ordinary in pasted text; other C0 controls are not
# (and PostgreSQL refuses NUL outright).
_ALLOWED_CONTROLS = frozenset("\t\n\r")


def field_label(name: str) -> str:
    return _TEXT_FIELDS[name].label if name in _TEXT_FIELDS else name.replace("_", " ")


def clean_fields(fields: Mapping[str, str]) -> dict[str, Any]:
    """Column values for ``fields``, secret-checked and validated; raises on the first fault."""
    unknown = sorted(set(fields) - set(STORED_FIELDS))
    if unknown:
        raise Invalid("unknown_field", f"Unknown field: {unknown[0]}.", unknown[0])
    cleaned: dict[str, Any] = {}
    for name in STORED_FIELDS:
        if name not in fields:
            continue
        value = fields[name]
        if not isinstance(value, str):
            raise Invalid("invalid_field", "Send this field as text.", name)
        if name == "attempts":
            cleaned[name] = _attempts(value)
        elif name == "source_visibility":
            cleaned[name] = _visibility(value)
        elif name == "gateway_call_id":
            cleaned[name] = _call_id(value)
        else:
            cleaned[name] = _text(name, value)
    return cleaned


def _text(name: str, value: str) -> str:
    spec = _TEXT_FIELDS[name]
    value = unicodedata.normalize("NFC", value)
    if spec.single_line:
        value = value.strip()
    # Before the shape rules, so a pasted key is called a key rather than "too long".
    problem = check_text_field(spec.label, value) if value else None
    if problem is not None:
        raise Invalid("secret_detected", problem, name)
    if len(value) > spec.max_chars:
        raise Invalid(
            "field_too_long",
            f"The {spec.label} can be at most {spec.max_chars:,} characters; "
            f"this one has {len(value):,}.",
            name,
        )
    if spec.single_line and any(unicodedata.category(ch) in ("Cc", "Zl", "Zp") for ch in value):
        raise Invalid("field_single_line", f"The {spec.label} must be a single line of text.", name)
    if any(unicodedata.category(ch) == "Cs" for ch in value):
        # Half of a character pair, as a JSON "\ud800" escape or a cut paste can carry; no
        # database stores it.
        raise Invalid(
            "field_broken_characters",
            f"The {spec.label} contains broken characters (half of a character pair). Remove "
            "them and try again.",
            name,
        )
    if any(unicodedata.category(ch) == "Cc" and ch not in _ALLOWED_CONTROLS for ch in value):
        raise Invalid(
            "field_control_chars",
            f"The {spec.label} contains control characters (such as NUL). Remove them and "
            "try again.",
            name,
        )
    return value


def _attempts(value: str) -> int | None:
    value = value.strip()
    if not value:
        return None
    if not value.isascii() or not value.isdigit() or not 1 <= int(value) <= MAX_ATTEMPTS:
        raise Invalid(
            "invalid_attempts",
            "Attempts is how many tries this result was picked from: a whole number of at "
            "least 1, or leave it blank.",
            "attempts",
        )
    return int(value)


def _call_id(value: str) -> str:
    value = value.strip()
    problem = check_text_field("gateway call id", value) if value else None
    if problem is not None:
        raise Invalid("secret_detected", problem, "gateway_call_id")
    if len(value) > MAX_CALL_ID_CHARS or not set(value) <= _CALL_ID_CHARS:
        raise Invalid(
            "invalid_call_id",
            f"A gateway call id is at most {MAX_CALL_ID_CHARS} letters, digits and . _ : - "
            "characters.",
            "gateway_call_id",
        )
    return value


def _visibility(value: str) -> SourceVisibility:
    try:
        return SourceVisibility(value.strip().lower())
    except ValueError:
        raise Invalid(
            "invalid_source_visibility",
            "Source visibility is either public (downloadable) or private (used only for the "
            "automated preview).",
            "source_visibility",
        ) from None
