"""Holds: a moderator keeps a Test out of rankings, or clears it for them."""

from __future__ import annotations

from typing import Literal

from sqlmodel import Session, select

from benchmax.models import CaseState, ModerationAction, ModerationDecision, ModerationHold, User
from benchmax.services.errors import NotFound
from benchmax.services.moderation.cases import close_case, decided_test
from benchmax.services.moderation.policy import clean_reason, require_admin
from benchmax.services.moderation.queues import injection_codes_for_test
from benchmax.services.moderation.records import record_decision

INJECTION_HOLD_CODE = "injection_signals"


def decide_hold(
    session: Session,
    actor: User | None,
    test_id: str,
    outcome: Literal["keep", "clear"],
    reason: str,
) -> ModerationDecision:
    """Keep a Test out of rankings (opening a hold for unheld injection findings) or clear
    it (closing its open holds)."""
    admin = require_admin(actor, "decide holds")
    clean = clean_reason(reason)
    test = decided_test(session, admin, test_id)
    holds = list(
        session.exec(
            select(ModerationHold).where(
                ModerationHold.test_id == test.id, ModerationHold.state == CaseState.OPEN
            )
        ).all()
    )
    if not holds and not injection_codes_for_test(session, test.id):
        raise NotFound("nothing_to_decide", "This Test has no open hold or injection findings.")
    previous = "held" if holds else "flagged"
    if outcome == "keep":
        if not holds:
            session.add(ModerationHold(test_id=test.id, reason_code=INJECTION_HOLD_CODE))
        next_state = "held"
    else:
        for hold in holds:
            close_case(hold, CaseState.DISMISSED, session)
        next_state = "cleared"
    return record_decision(
        session,
        admin,
        ModerationAction(f"hold.{outcome}"),
        ("test", test.id),
        clean,
        (previous, next_state),
    )
