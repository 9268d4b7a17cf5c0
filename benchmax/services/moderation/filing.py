"""Filing a dispute or an appeal: one open case per subject, an hourly cap per account.

Each service first checks for an open case itself, so a contributor gets a friendly answer;
a partial unique index keeps the rule when two requests race past that check.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from benchmax.models import Appeal, Dispute, User, audit
from benchmax.services.moderation.cases import KINDS
from benchmax.services.moderation.rate_limits import check_hourly_limit


def file_case(
    session: Session,
    case: Dispute | Appeal,
    actor: User,
    detail: dict[str, Any],
    refuse_if_open: Callable[[], None],
    *,
    per_hour: int,
) -> None:
    """Insert a contributor's case with its audit event, both or neither.

    ``refuse_if_open`` raises the kind's ``Conflict`` while a case is open on the same
    subject; it runs before the hourly cap is counted, and again to answer a lost race. A
    savepoint lets an insert refused by the one-open-case index leave the caller's
    transaction usable. The audit event sits inside it so the two are written or refused
    together: with SQLite's driver a savepoint opened before any other write is the whole
    transaction, and releasing it commits.
    """
    kind = KINDS[type(case)]
    refuse_if_open()
    check_hourly_limit(session, type(case), actor.id, per_hour, f"{kind.noun}s")
    try:
        with session.begin_nested():
            session.add(case)
            audit(session, kind.filed, (kind.noun, case.id), actor_id=actor.id, detail=detail)
    except IntegrityError:
        refuse_if_open()
        raise
