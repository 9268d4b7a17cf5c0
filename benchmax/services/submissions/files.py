"""Evidence uploads: streamed into quarantine with byte counting, never held in memory.

A file goes to ``quarantine/{test_id}/{evidence_id}`` as it arrives. The per-file ceiling is
the largest any kind may be (the scanner applies each kind's own limit once the bytes say
what the file is) and never more than what is left of the Test's total, so an oversized
upload is cut off at the cap rather than stored and refused later. The object is written
before its row commits: if the transaction then fails, the periodic quarantine clean-up
removes the orphan. The file's safety scan is enqueued in the same transaction, so it starts
as soon as the upload commits; submit then only waits for it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import BinaryIO

from sqlalchemy import func
from sqlmodel import Session, col, select

from benchmax.adapters.storage import (
    DEFAULT_CHUNK_SIZE,
    QUARANTINE_PREFIX,
    ObjectStorage,
    iter_chunks,
)
from benchmax.models import CancelledUpload, EvidenceFile, EvidenceState, TestState, User
from benchmax.models._base import new_id, utcnow
from benchmax.services.byte_cap import ByteCap
from benchmax.services.errors import Conflict, Invalid, NotFound, TooLarge
from benchmax.services.safety import FilenameError, SafetyLimits, normalise_filename
from benchmax.services.safety.limits import MIB
from benchmax.services.submissions.account_limits import (
    account_full,
    recheck_held_bytes,
    room_left,
)
from benchmax.services.submissions.records import (
    editable_test,
    enqueue_scan,
    live_files,
    lock_test,
)
from benchmax.settings import Settings

FILES_FIELD = "files"
# What a browser names an upload with (the wizard uses a random UUID): enough to be unguessable
# within one draft, and nothing that needs escaping in a path.
UPLOAD_KEY_PATTERN = r"^[A-Za-z0-9_-]{16,64}$"
# Far above what anyone cancels on one draft; a bound on rows one account can make.
MAX_CANCELLED_UPLOADS = 200


def quarantine_key(test_id: str, evidence_id: str) -> str:
    return f"{QUARANTINE_PREFIX}{test_id}/{evidence_id}"


def largest_file_bytes(limits: SafetyLimits) -> int:
    """The biggest single file any kind allows: the cap while bytes stream in, before sniffing."""
    return max(
        limits.image_max_bytes, limits.video_max_bytes, limits.text_max_bytes, limits.zip_max_bytes
    )


def _too_large(cap: int, limits: SafetyLimits) -> TooLarge:
    if cap < largest_file_bytes(limits):
        message = (
            f"This file would take the Test past its {limits.test_max_bytes / MIB:,.0f} MiB "
            "total. Remove or shrink other files first."
        )
    else:
        message = (
            f"Files can be at most {cap / MIB:,.0f} MiB (videos; images and text 20 MiB, ZIPs "
            "20 MiB). Make it smaller and upload it again."
        )
    return TooLarge("file_too_large", message, FILES_FIELD)


def checked_upload_key(raw: str) -> str:
    """``raw`` as an upload key, or ``Invalid``; empty means the upload has none."""
    if raw and not re.fullmatch(UPLOAD_KEY_PATTERN, raw):
        raise Invalid(
            "upload_key_invalid",
            "The upload key must be 16 to 64 letters, digits, hyphens or underscores.",
            FILES_FIELD,
        )
    return raw


def add_file(
    session: Session,
    storage: ObjectStorage,
    user: User,
    test_id: str,
    filename: str,
    data: BinaryIO | Iterable[bytes],
    *,
    settings: Settings,
    declared_size: int | None = None,
    limits: SafetyLimits | None = None,
    upload_key: str = "",
) -> EvidenceFile:
    """Stream one file into quarantine and record it as ``quarantined``; the account's cap on
    held bytes comes from ``settings``. An ``upload_key`` the contributor has already
    cancelled stores nothing (``Conflict``)."""
    limits = limits or SafetyLimits()
    test = editable_test(session, user, test_id)
    try:
        safe_name = normalise_filename(filename, limits.filename_max_chars)
    except FilenameError as error:
        raise Invalid(error.code, error.message, FILES_FIELD) from None
    files = live_files(session, test.id)
    _check_count(len(files), limits)
    used = sum(file.size_bytes for file in files)
    cap = min(largest_file_bytes(limits), limits.test_max_bytes - used)
    room = room_left(session, user.id, settings)
    refusal = _too_large(cap, limits) if cap <= room else account_full(settings)
    cap = min(cap, room)
    if declared_size is not None and declared_size > cap:
        raise refusal
    evidence_id = new_id()
    key = quarantine_key(test.id, evidence_id)
    try:
        # Past the cap the refusal is raised inside the stream, which aborts the write.
        info = storage.put(key, ByteCap(cap, refusal).chunks(iter_chunks(data, DEFAULT_CHUNK_SIZE)))
    except BaseException:
        storage.delete(key)
        raise
    try:
        evidence = _record(
            session, test.id, evidence_id, key, filename, safe_name, info.size, upload_key
        )
        _recheck_totals(session, test.id, limits)
        recheck_held_bytes(session, user.id, settings)
    except BaseException:
        storage.delete(key)
        raise
    # Scanned now, not on submit: the wizard shows the verdict while the contributor is
    # still at the files, and a secret is deleted from quarantine at once.
    enqueue_scan(session, evidence, user.id)
    return evidence


def _check_count(existing: int, limits: SafetyLimits) -> None:
    if existing + 1 > limits.test_max_files:
        raise Invalid(
            "test_too_many_files",
            f"A Test can have at most {limits.test_max_files} files. Remove some, or combine "
            "source files into one ZIP.",
            FILES_FIELD,
        )


def _record(
    session: Session,
    test_id: str,
    evidence_id: str,
    key: str,
    filename: str,
    safe_name: str,
    size: int,
    upload_key: str,
) -> EvidenceFile:
    if size == 0:
        raise Invalid("file_empty", f"“{safe_name}” is empty. Upload the file again.", FILES_FIELD)
    lock_test(session, test_id)
    _refuse_cancelled(session, test_id, upload_key)
    position = session.exec(
        select(func.coalesce(func.max(EvidenceFile.position) + 1, 0)).where(
            EvidenceFile.test_id == test_id
        )
    ).one()
    evidence = EvidenceFile(
        id=evidence_id,
        test_id=test_id,
        original_name=filename[:255],
        safe_name=safe_name,
        size_bytes=size,
        quarantine_key=key,
        state=EvidenceState.QUARANTINED,
        position=position,
        upload_key=upload_key,
    )
    session.add(evidence)
    session.flush()
    return evidence


def _refuse_cancelled(session: Session, test_id: str, upload_key: str) -> None:
    """Called under the Test's lock, so a Cancel is either already recorded here or will
    find the file this upload stores."""
    if upload_key and session.get(CancelledUpload, (test_id, upload_key)) is not None:
        raise Conflict(
            "upload_cancelled", "You cancelled this upload, so it was not added.", FILES_FIELD
        )


def cancel_upload(
    session: Session, storage: ObjectStorage, user: User, test_id: str, upload_key: str
) -> None:
    """Cancel the wizard upload named ``upload_key``: remove its file if it was stored, and
    keep it from being stored if it is still on its way. Cancelling twice is harmless."""
    test = editable_test(session, user, test_id)
    lock_test(session, test.id)
    if session.get(CancelledUpload, (test.id, upload_key)) is None:
        cancelled = session.exec(
            select(func.count())
            .select_from(CancelledUpload)
            .where(CancelledUpload.test_id == test.id)
        ).one()
        if cancelled >= MAX_CANCELLED_UPLOADS:
            raise Conflict(
                "too_many_cancels",
                "This draft has had too many cancelled uploads. Start a new draft.",
                FILES_FIELD,
            )
        session.add(CancelledUpload(test_id=test.id, upload_key=upload_key))
    stored = session.exec(
        select(EvidenceFile).where(
            EvidenceFile.test_id == test.id,
            EvidenceFile.upload_key == upload_key,
            col(EvidenceFile.state) != EvidenceState.REMOVED,
        )
    ).all()
    for evidence in stored:
        _discard(session, storage, evidence)
    session.flush()


def _recheck_totals(session: Session, test_id: str, limits: SafetyLimits) -> None:
    """Uploads to one Test can run in parallel: counted again under the Test's lock."""
    files = live_files(session, test_id)
    if len(files) > limits.test_max_files:
        _check_count(len(files) - 1, limits)
    if sum(file.size_bytes for file in files) > limits.test_max_bytes:
        raise _too_large(0, limits)


def remove_file(
    session: Session, storage: ObjectStorage, user: User, test_id: str, evidence_id: str
) -> None:
    """Take a file off an editable Test; the row stays as ``removed`` for the record."""
    test = editable_test(session, user, test_id)
    _discard(session, storage, _own_file(session, test.id, evidence_id))


def _discard(session: Session, storage: ObjectStorage, evidence: EvidenceFile) -> None:
    """Mark the file removed and delete its bytes."""
    _mark_removed(session, evidence)
    # Deleted now rather than after commit: if the caller then rolls back, the row is still
    # there and its scan finds no bytes, which blocks the file with a reason to upload again.
    for key in (evidence.quarantine_key, evidence.storage_key):
        if key:
            storage.delete(key)


def replace_file(
    session: Session,
    storage: ObjectStorage,
    user: User,
    test_id: str,
    evidence_id: str,
    filename: str,
    data: BinaryIO | Iterable[bytes],
    *,
    settings: Settings,
    declared_size: int | None = None,
    limits: SafetyLimits | None = None,
) -> EvidenceFile:
    """Swap a blocked file of a Test that needs attention for a new upload.

    The blocked row is kept as ``removed`` (its reason stays in the history); the new file is
    quarantined and scanned at once, like any upload.
    """
    test = editable_test(session, user, test_id)
    old = _own_file(session, test.id, evidence_id)
    if test.state != TestState.NEEDS_ATTENTION or old.state != EvidenceState.BLOCKED:
        raise Conflict(
            "not_replaceable",
            "Only a blocked file of a Test that needs attention can be replaced; remove this "
            "one and add the new file instead.",
            FILES_FIELD,
        )
    _mark_removed(session, old)
    return add_file(
        session,
        storage,
        user,
        test_id,
        filename,
        data,
        settings=settings,
        declared_size=declared_size,
        limits=limits,
    )


def _own_file(session: Session, test_id: str, evidence_id: str) -> EvidenceFile:
    evidence = session.get(EvidenceFile, evidence_id)
    if evidence is None or evidence.test_id != test_id or evidence.state == EvidenceState.REMOVED:
        raise NotFound("file_not_found", "This Test has no such file.")
    return evidence


def _mark_removed(session: Session, evidence: EvidenceFile) -> None:
    evidence.state = EvidenceState.REMOVED
    evidence.updated_at = utcnow()
    session.add(evidence)
    session.flush()
