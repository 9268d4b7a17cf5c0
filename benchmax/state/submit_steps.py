"""The wizard's five steps: their titles, which draft fields each one edits, and the step a
refused field sends the contributor back to."""

from __future__ import annotations

from benchmax.services.submissions import DRAFT_FIELDS

TEXT_FIELDS = DRAFT_FIELDS
STEP_FIELDS = {
    1: ("prompt",),
    2: (
        "model_label",
        "model_version_label",
        "harness_label",
        "reasoning_label",
        "settings_text",
        "attempts",
    ),
    3: ("output_text", "source_visibility"),
    4: ("title", "notes"),
}
STEP_TITLES = ["Prompt", "Declared setup", "Output & evidence", "Details", "Review & submit"]
LAST_STEP = len(STEP_TITLES)
EVIDENCE_STEP = 3
FIELD_STEP = {field: step for step, fields in STEP_FIELDS.items() for field in fields}


def step_of(field: str | None) -> int | None:
    """The step that shows ``field``'s error; None for a refusal that names no step's field."""
    if field == "files":
        return EVIDENCE_STEP
    return FIELD_STEP.get(field or "")
