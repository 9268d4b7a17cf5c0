"""Per-account caps on what waits unpublished: open drafts and bytes of files held.

Without them one account could open drafts and upload files without end, filling storage
and the scan queue without ever submitting. The caps (``max_open_drafts``,
``max_quarantine_bytes_per_account``) are counted in the database, so every web process and
the API share them; the count is taken again under the account's lock after the new row is
written, so parallel uploads cannot slip past together (SQLite serialises writers anyway;
PostgreSQL locks the account's row).

Held bytes are the files of the account's Tests that are not public yet (drafts, Tests that
need attention, are processing or failed): quarantined files, and files the scan approved
but that nobody may see yet. Blocked files hold no bytes (they are deleted at once), and a
public Test's files no longer count.
"""

from __future__ import annotations

from sqlalchemy import func
from sqlmodel import Session, col, select

from benchmax.models import EvidenceFile, EvidenceState, Test, TestState, User
from benchmax.services.errors import Conflict, TooLarge
from benchmax.services.safety.limits import MIB
from benchmax.settings import Settings

_HOLDING_FILE_STATES = (EvidenceState.UPLOADING, EvidenceState.QUARANTINED, EvidenceState.APPROVED)
_UNPUBLISHED_STATES = (
    TestState.DRAFT,
    TestState.NEEDS_ATTENTION,
    TestState.PROCESSING,
    TestState.FAILED,
)


def lock_account(session: Session, user_id: str) -> None:
    """Hold the account's row for the rest of the transaction (a no-op on SQLite, which
    serialises writers anyway).

    ``FOR NO KEY UPDATE``, not ``FOR UPDATE``: every row written with a foreign key to the
    account (a Test, a token use) takes a key-share lock on it, which ``FOR UPDATE`` would
    wait for. Two transactions that each wrote such a row and then asked for the lock would
    wait for each other: PostgreSQL's "deadlock detected" on parallel submissions. A
    transaction that locks the account still takes the lock before it writes anything else
    of the account's, so they queue in one order.
    """
    session.exec(select(User.id).where(User.id == user_id).with_for_update(key_share=True)).first()


def check_open_drafts(session: Session, user: User, settings: Settings) -> None:
    """Refuse a new draft when the account already has as many open drafts as it may."""
    limit = settings.max_open_drafts
    lock_account(session, user.id)
    count = session.exec(
        select(func.count())
        .select_from(Test)
        .where(Test.contributor_id == user.id, Test.state == TestState.DRAFT)
    ).one()
    if count >= limit:
        raise Conflict(
            "too_many_drafts",
            f"You already have {count} open drafts, the most one account can keep. Submit "
            "one of them first; My Tests lists them, and when an untouched one expires.",
        )


def held_bytes(session: Session, user_id: str) -> int:
    """Bytes of the account's files on Tests that are not public yet."""
    total = session.exec(
        select(func.coalesce(func.sum(EvidenceFile.size_bytes), 0))
        .join(Test, col(Test.id) == col(EvidenceFile.test_id))
        .where(
            Test.contributor_id == user_id,
            col(Test.state).in_(_UNPUBLISHED_STATES),
            col(EvidenceFile.state).in_(_HOLDING_FILE_STATES),
        )
    ).one()
    return int(total)


def room_left(session: Session, user_id: str, settings: Settings) -> int:
    """How many more bytes the account may upload before something is published."""
    return max(0, settings.max_quarantine_bytes_per_account - held_bytes(session, user_id))


def account_full(settings: Settings) -> TooLarge:
    limit = settings.max_quarantine_bytes_per_account
    return TooLarge(
        "account_storage_full",
        f"Your files waiting to be published would pass the {limit / MIB:,.0f} MiB one account "
        "may hold. Submit a draft (published files stop counting) or remove files, then "
        "upload again.",
        "files",
    )


def recheck_held_bytes(session: Session, user_id: str, settings: Settings) -> None:
    """Counted again under the account's lock once the new file's row is written."""
    lock_account(session, user_id)
    if held_bytes(session, user_id) > settings.max_quarantine_bytes_per_account:
        raise account_full(settings)
