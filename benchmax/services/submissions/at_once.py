"""A whole Test in one request (the submission API's ``POST``), created in one transaction.

The Test is made with the very service calls the wizard uses — create_draft, save_draft,
add_file, submit — so both apply the same validation, limits and pipeline, and a refused
request stores nothing: the transaction rolls back and the quarantined objects it wrote are
deleted again. The transaction is this module's, not the caller's, because those deletions
must follow the commit's failure too (a concurrent retry's key taken first), and a retry that
lost that race answers with the Test that won it.

The transaction takes the account's lock before anything else (``quota.take_slot`` counts the
submission under it), so parallel submissions of one account queue rather than deadlock, and
a refused one leaves the account's submission count as it was.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import BinaryIO

from sqlalchemy.exc import IntegrityError

from benchmax.services.accounts import get_user
from benchmax.services.jobs import JobContext
from benchmax.services.safety import SafetyLimits
from benchmax.services.submissions.account_limits import lock_account
from benchmax.services.submissions.drafts import create_draft, save_draft
from benchmax.services.submissions.files import add_file
from benchmax.services.submissions.idempotency import prior_submission, replayed
from benchmax.services.submissions.lifecycle import submit
from benchmax.services.submissions.quota import Allowance, Rate, take_slot


@dataclass(frozen=True)
class IncomingFile:
    """One file of the request: its name as sent, its bytes (seekable), its declared size."""

    name: str
    data: BinaryIO
    size: int | None = None


@dataclass(frozen=True)
class WholeSubmission:
    """What the request asks for, in the draft's field names, and its fingerprint."""

    fields: dict[str, str]
    files: Sequence[IncomingFile]
    fingerprint: str


@dataclass(frozen=True)
class Submitter:
    """Who submits, through which token, under which rate. Without a rate the caller has
    counted the submission already (a batch counts each setup before it is made)."""

    user_id: str
    token_id: str = ""
    rate: Rate | None = None


@dataclass(frozen=True)
class Submitted:
    """The Test's id and the account's allowance after it (None for a replayed key)."""

    test_id: str
    allowance: Allowance | None


def fingerprint(fields: Mapping[str, str], files: Sequence[IncomingFile]) -> str:
    """SHA-256 over the request's meaning: its fields and each file's name and bytes."""
    digests = []
    for incoming in files:
        digest = hashlib.sha256()
        for chunk in _chunks(incoming.data):
            digest.update(chunk)
        incoming.data.seek(0)
        digests.append([incoming.name, digest.hexdigest()])
    canonical = json.dumps({"fields": dict(fields), "files": digests}, sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _chunks(data: BinaryIO) -> Iterator[bytes]:
    while chunk := data.read(1024 * 1024):
        yield chunk


def submit_at_once(
    jobs: JobContext,
    submitter: Submitter,
    key: str | None,
    submission: WholeSubmission,
    limits: SafetyLimits,
) -> Submitted:
    """The new Test (processing), or with ``key`` (a digest) the Test a concurrent retry
    created with it a moment earlier. Its sessions are ``jobs``'s, so the scans that submit
    enqueues are sent as soon as the Test commits."""
    try:
        return _create(jobs, submitter, key, submission, limits)
    except IntegrityError:
        if key is None:
            raise
        with jobs.session() as session:
            raced = prior_submission(session, submitter.user_id, key)
        if raced is None:
            raise
        return Submitted(replayed(raced, submission.fingerprint), None)


def _create(
    jobs: JobContext,
    submitter: Submitter,
    key: str | None,
    submission: WholeSubmission,
    limits: SafetyLimits,
) -> Submitted:
    written: list[str] = []
    user_id = submitter.user_id
    try:
        with jobs.session() as session:
            lock_account(session, user_id)
            if key is not None and (prior := prior_submission(session, user_id, key)):
                # A retry that waited for the lock behind the request that used its key.
                return Submitted(replayed(prior, submission.fingerprint), None)
            allowance = (
                take_slot(session, user_id, submitter.token_id, submitter.rate)
                if submitter.rate is not None
                else None
            )
            user = get_user(session, user_id)
            assert user is not None
            test = create_draft(session, user, jobs.settings, submitted_at_once=True)
            test.idempotency_key = key
            test.idempotency_fingerprint = submission.fingerprint if key else ""
            session.add(test)
            session.flush()
            save_draft(session, user, test.id, submission.fields, step=5)
            for incoming in submission.files:
                evidence = add_file(
                    session,
                    jobs.storage,
                    user,
                    test.id,
                    incoming.name,
                    incoming.data,
                    settings=jobs.settings,
                    declared_size=incoming.size,
                    limits=limits,
                )
                written.append(evidence.quarantine_key)
            submit(session, user, test.id)
            return Submitted(test.id, allowance)
    except BaseException:
        for object_key in written:
            jobs.storage.delete(object_key)
        raise
