"""The wizard's parent state: what every part of ``/submit`` reads, whichever part is acting.

Which draft the page is on, which step it shows, whether it is editing or following the
submission, and what it has to say (errors by field, a notice). The three substates below it
each own one concern (see ``benchmax.state.submit``); these vars live here because all three
read or write them, and a substate reads its parent's vars as its own.
"""

from __future__ import annotations

import reflex as rx

from benchmax.state.session import SessionState

SESSION_ENDED = "Your session ended. Sign in again — your draft is saved."


class WizardState(SessionState):
    draft_id: rx.Field[str] = rx.field("")
    step: rx.Field[int] = rx.field(1)
    # "edit" while the steps are shown; "processing", then "done", once the draft is submitted.
    phase: rx.Field[str] = rx.field("edit")
    errors: rx.Field[dict[str, str]] = rx.field(default_factory=dict)
    notice: rx.Field[str] = rx.field("")
    # What a load or a refused submit says, kept for the load of the address it moves to.
    _carried: dict[str, str] = {}
    _carried_notice: str = ""
