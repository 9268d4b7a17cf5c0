"""One prompt, several setups, one submission: a batch makes one Test per setup.

Each setup is a whole submission of its own, made by ``submit_at_once`` — the very path of the
submission API's single ``POST`` — in its own transaction. So every setup passes the same
field checks, secret check and safety processing on its own; one refused setup stores nothing
of itself (its transaction rolls back) and never holds the others back; the answer says, per
setup, which Test it became or why it was refused.

One ``Idempotency-Key`` covers the batch. Its digest is never stored as is: setup ``i`` keeps
``sha256(digest + "#i")`` with the batch's fingerprint, so the unique key per contributor still
holds, a replay finds each setup it already made (and makes none twice), and a different batch
under the same key is refused before anything is made. A refused setup left no row, so a
replay submits it again, as a retried single submission would be, and it is refused the same.

Limits: every new setup is one submission against the caller's rate (``take_slot``), taken
before it is made; once the account is out of room, the setups left are refused with the
wait. A setup is checked (``check_complete``, what ``submit`` checks) before it takes room,
so one refused for what it holds costs nothing and a replay refuses it the same way; replayed
setups are free.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from benchmax.services.errors import Invalid, ServiceError
from benchmax.services.jobs import JobContext
from benchmax.services.safety import SafetyLimits
from benchmax.services.submissions.at_once import Submitter, WholeSubmission, submit_at_once
from benchmax.services.submissions.fields import REFERENCE_FIELDS, SETUP_FIELDS, clean_fields
from benchmax.services.submissions.idempotency import prior_submission, replayed
from benchmax.services.submissions.lifecycle import REQUIRED_MESSAGES, check_complete
from benchmax.services.submissions.quota import rate_limited, recent_submissions_wait

# What every setup shares, and what each one declares for itself.
SHARED_FIELDS = ("prompt", "title", "notes")
PER_SETUP_FIELDS = (*SETUP_FIELDS, "output_text", *REFERENCE_FIELDS)
MAX_SETUPS = 20

# Takes one submission from the caller's budget: None, or the refusal once it is spent.
SlotTaker = Callable[[], ServiceError | None]


@dataclass(frozen=True)
class Batch:
    """A batch in the draft's field names: the shared fields, then one mapping per setup."""

    shared: Mapping[str, str]
    setups: Sequence[Mapping[str, str]]

    def fingerprint(self) -> str:
        canonical = json.dumps(
            {"shared": dict(self.shared), "setups": [dict(s) for s in self.setups]},
            sort_keys=True,
        )
        return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True)
class SetupOutcome:
    """One setup's result: the Test it became, or the refusal that stored nothing of it."""

    index: int
    test_id: str = ""
    refusal: ServiceError | None = None

    @property
    def line(self) -> int:
        """The setup's place as a person counts it ("setup 3"), the way messages name it."""
        return self.index + 1


def slot_by_tests(jobs: JobContext, user_id: str, *, limit: int, window_seconds: int) -> SlotTaker:
    """A rate for callers without a token (the wizard): the account's Tests submitted in the
    window, by any path, counted from the Tests themselves."""

    def take() -> ServiceError | None:
        with jobs.session() as session:
            wait = recent_submissions_wait(
                session, user_id, limit=limit, window_seconds=window_seconds
            )
        return None if wait is None else rate_limited(wait)

    return take


def setup_digest(batch_digest: str, index: int) -> str:
    """What setup ``index`` of a batch keeps as its ``idempotency_key``."""
    return hashlib.sha256(f"{batch_digest}#{index}".encode()).hexdigest()


def check_batch(batch: Batch) -> None:
    """Refuse what is wrong with the batch as a whole, before any setup is made."""
    if not batch.setups:
        raise Invalid("no_setups", "Add at least one setup.", "setups")
    if len(batch.setups) > MAX_SETUPS:
        raise Invalid(
            "too_many_setups",
            f"A batch holds at most {MAX_SETUPS} setups; this one has {len(batch.setups)}.",
            "setups",
        )
    stray = sorted(set(batch.shared) - set(SHARED_FIELDS))
    if stray:
        raise Invalid("unknown_field", f"Unknown field: {stray[0]}.", stray[0])
    for setup in batch.setups:
        stray = sorted(set(setup) - set(PER_SETUP_FIELDS))
        if stray:
            raise Invalid("unknown_field", f"Unknown setup field: {stray[0]}.", stray[0])
    # The shared fields are every setup's: a fault there is the batch's, said once.
    clean_fields(batch.shared)
    if not str(batch.shared.get("prompt", "")).strip():
        raise Invalid("required", REQUIRED_MESSAGES["prompt"], "prompt")


def submit_batch(
    jobs: JobContext,
    user_id: str,
    key: str | None,
    batch: Batch,
    limits: SafetyLimits,
    take_slot: SlotTaker | None = None,
) -> list[SetupOutcome]:
    """One outcome per setup, in order. ``key`` is the Idempotency-Key's digest, if sent.

    Raises only for the batch as a whole: ``check_batch``'s refusals, and ``Conflict`` when
    ``key`` already covers a different batch (then nothing is made).
    """
    check_batch(batch)
    fingerprint = batch.fingerprint()
    made = _replayed(jobs, user_id, key, len(batch.setups), fingerprint)
    outcomes: list[SetupOutcome] = []
    spent: ServiceError | None = None
    for index, setup in enumerate(batch.setups):
        if index in made:
            outcomes.append(SetupOutcome(index, test_id=made[index]))
            continue
        values = {**batch.shared, **setup}
        try:  # a setup refused for what it holds costs nothing and is refused the same again
            check_complete(values, has_files=False)
        except ServiceError as refusal:
            outcomes.append(SetupOutcome(index, refusal=refusal))
            continue
        if spent is None and take_slot is not None:
            spent = take_slot()
        if spent is not None:
            outcomes.append(SetupOutcome(index, refusal=spent))
            continue
        submission = WholeSubmission(values, [], fingerprint)
        setup_key = setup_digest(key, index) if key else None
        try:
            test_id = submit_at_once(
                jobs, Submitter(user_id), setup_key, submission, limits
            ).test_id
        except ServiceError as refusal:
            outcomes.append(SetupOutcome(index, refusal=refusal))
        else:
            outcomes.append(SetupOutcome(index, test_id=test_id))
    return outcomes


def _replayed(
    jobs: JobContext, user_id: str, key: str | None, count: int, fingerprint: str
) -> dict[int, str]:
    """The setups an earlier request with ``key`` already made, by index; all checked against
    this batch's fingerprint before anything new is made."""
    if key is None:
        return {}
    made: dict[int, str] = {}
    with jobs.session() as session:
        for index in range(count):
            prior = prior_submission(session, user_id, setup_digest(key, index))
            if prior is not None:
                made[index] = replayed(prior, fingerprint)
    return made
