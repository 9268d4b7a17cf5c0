"""The wizard's five steps: their titles, which draft fields each one edits, what each one
needs before the contributor may go on, the step a refused field sends them back to, and
each step's address.

Every step is checked by the same rule, whether the contributor presses Next, clicks a later
step in the stepper, or opens a deep link (``/submit?step=5``): a step may be shown only when
every earlier step has what it needs. The messages are the ones submit itself refuses with,
so the wizard never lets someone through to a refusal it could have named earlier.
"""

from __future__ import annotations

from collections.abc import Mapping

from benchmax.services.submissions import DRAFT_FIELDS as TEXT_FIELDS
from benchmax.services.submissions import (
    EVIDENCE_REQUIRED_MESSAGE,
    REQUIRED_MESSAGES,
    SETUP_FIELDS,
)

STEP_FIELDS = {
    1: ("prompt",),
    2: SETUP_FIELDS,
    3: ("output_text", "source_visibility"),
    4: ("title", "notes"),
}
STEP_TITLES = ["Prompt", "Declared setup", "Output & evidence", "Details", "Review & submit"]
LAST_STEP = len(STEP_TITLES)
EVIDENCE_STEP = 3
FIELD_STEP = {field: step for step, fields in STEP_FIELDS.items() for field in fields}

__all__ = [
    "EVIDENCE_STEP",
    "FIELD_STEP",
    "LAST_STEP",
    "STEP_FIELDS",
    "STEP_TITLES",
    "TEXT_FIELDS",
    "clamp_step",
    "first_incomplete",
    "step_of",
    "step_problems",
    "wizard_url",
]


def step_of(field: str | None) -> int | None:
    """The step that shows ``field``'s error; None for a refusal that names no step's field."""
    if field == "files":
        return EVIDENCE_STEP
    return FIELD_STEP.get(field or "")


def clamp_step(raw: object, default: int = 1) -> int:
    """A step number from a URL or a row: anything that is not 1…5 becomes ``default``."""
    try:
        step = int(str(raw))
    except ValueError:
        return default
    return step if 1 <= step <= LAST_STEP else default


def step_problems(step: int, values: Mapping[str, str], file_count: int) -> dict[str, str]:
    """What ``step`` still needs, by field: blank required fields, and on the evidence step
    an output that is neither pasted nor uploaded."""
    problems = {
        field: message
        for field, message in REQUIRED_MESSAGES.items()
        if FIELD_STEP.get(field) == step and not values.get(field, "").strip()
    }
    if step == EVIDENCE_STEP and not values.get("output_text", "").strip() and not file_count:
        problems["output_text"] = EVIDENCE_REQUIRED_MESSAGE
    return problems


def first_incomplete(
    wanted: int, values: Mapping[str, str], file_count: int
) -> tuple[int, dict[str, str]]:
    """The step to show for a request to see ``wanted``: it, or the first earlier step that
    still needs something, with what it needs."""
    for step in range(1, wanted):
        problems = step_problems(step, values, file_count)
        if problems:
            return step, problems
    return wanted, {}


def wizard_url(draft_id: str, step: int) -> str:
    """The address of one step of one draft; a new wizard has no draft yet."""
    if not draft_id:
        return f"/submit?step={step}"
    return f"/submit?draft={draft_id}&step={step}"


def saves_to_this_page(address_draft: str, state_draft: str) -> bool:
    """Whether a save may go ahead: the page's address names no draft, or the one this state
    holds.

    A page whose event socket reconnected can be handed a fresh, empty state; until its on_load
    has run, that state holds no draft while the address still names one. A save then would
    start a second draft holding one stray field (seen after a submit: a copy of the title).
    """
    return not address_draft or address_draft == state_draft
