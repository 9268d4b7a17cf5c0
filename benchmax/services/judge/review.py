"""The AI review of one public Test: a durable job enqueued when the Test is published.

``request_ai_review`` adds the job in the publishing transaction, so it exists only once the
Test is public; with no judge configured it adds nothing. The job never changes the Test's
public state: the worst it can do is add a review, a hold, or nothing.

The handler (``judge_review``, subject: a Test id) is idempotent and resumable:

1. Skip unless the judge is on, the Test is public, a snapshot is active and this Test has
   no AI review from it yet. If the Test carries our own injection signals, hold it now,
   before anything is sent.
2. Build the evidence (bounded, then identity-blinded) and the slots still missing: every
   round ``0..k-1`` for every model id. Samples already recorded by an earlier attempt are
   reused, so a retry pays only for what is missing.
3. For each slot, reserve its samples, ask, store every sample (append-only, its own
   commit) and settle: every request that may have reached the judge counts, whatever came
   back. A reply that held anything credential-shaped is stored redacted and holds the Test
   for moderation (an open hold keeps it off the leaderboard). Budget spent (the day's or
   the contributor's): a new job waits for the next UTC day and this one ends. A transport
   error raises ``JobError`` with its code: the runner retries with backoff and finally
   leaves the job dead on /operations.
4. With every slot answered, append the AI review: the median of the valid samples, linked
   to them and to the snapshot. ``injection_suspected`` in any sample holds the Test.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from sqlmodel import Session, col, select

from benchmax.adapters.judge import JudgeClientError, JudgePort
from benchmax.models import (
    CaseState,
    Job,
    JudgeReviewSample,
    JudgeSample,
    JudgeSnapshot,
    ModerationHold,
    Review,
    ReviewerKind,
    SamplePurpose,
    SampleStatus,
    Test,
    TestState,
)
from benchmax.models.audit import AuditAction, audit
from benchmax.services.derived_text import JUDGE, record_redactions
from benchmax.services.jobs import JobContext, JobError, enqueue, job_handler
from benchmax.services.jobs.enqueue import enqueue_unless_pending
from benchmax.services.judge import budget
from benchmax.services.judge.blinding import BLINDING_VERSION, blinder_for_test
from benchmax.services.judge.evidence import EvidenceBounds, JudgeEvidence, build_evidence
from benchmax.services.judge.prompt import OUTPUT_SCHEMA_SHA256
from benchmax.services.judge.sampling import SampleSlot, draw
from benchmax.services.judge.snapshots import active_snapshot
from benchmax.services.judge.stats import median_score, spread
from benchmax.services.moderation.holds import INJECTION_HOLD_CODE
from benchmax.services.moderation.queues import injection_codes_for_test
from benchmax.services.moderation.reviews import refresh_review_state
from benchmax.services.safety.injection import injection_signals
from benchmax.settings import Settings

logger = logging.getLogger(__name__)

JUDGE_REVIEW = "judge_review"
HOLD_JUDGE_SUSPECTED = "judge_injection_suspected"
# The judge's reply held something that looked like a credential (removed before storing).
HOLD_JUDGE_REDACTED = "judge_reply_redacted"
# Deferred reviews fall due this long after midnight UTC, so that a worker whose clock runs a
# little behind already sees the new day's budget.
_NEXT_DAY_MARGIN = 60.0


def job_kind(ctx: JobContext, job_id: int) -> str | None:
    """Job ``job_id``'s kind: the worker runs AI reviews and previews on threads of their own."""
    with ctx.session() as session:
        return session.exec(select(Job.kind).where(Job.id == job_id)).first()


def is_judge_job(ctx: JobContext, job_id: int) -> bool:
    """Whether job ``job_id`` is an AI review."""
    return job_kind(ctx, job_id) == JUDGE_REVIEW


def request_ai_review(session: Session, settings: Settings, test_id: str) -> None:
    """Called in the transaction that publishes ``test_id``: queue its AI review if on."""
    if settings.judge_enabled:
        enqueue(session, JUDGE_REVIEW, test_id)


@dataclass(frozen=True)
class _Work:
    snapshot: JudgeSnapshot
    contributor_id: str
    evidence: JudgeEvidence
    missing: list[SampleSlot]
    done: list[JudgeSample]


def place_hold(session: Session, test_id: str, code: str) -> None:
    """An open moderation hold on ``test_id`` for ``code``, unless one is already open."""
    existing = session.exec(
        select(ModerationHold.id).where(
            ModerationHold.test_id == test_id,
            ModerationHold.reason_code == code,
            ModerationHold.state == CaseState.OPEN,
        )
    ).first()
    if existing is not None:
        return
    hold = ModerationHold(test_id=test_id, reason_code=code)
    session.add(hold)
    audit(
        session,
        AuditAction.HOLD_PLACED,
        ("test", test_id),
        actor_id=None,
        detail={"reason_code": code, "by": "ai_judge"},
    )


def own_injection_signals(session: Session, test: Test) -> bool:
    if injection_codes_for_test(session, test.id):
        return True
    return any(injection_signals(text) for text in (test.prompt, test.output_text, test.notes))


def _open_samples(session: Session, test_id: str, snapshot_id: str) -> list[JudgeSample]:
    """Valid review samples of this Test by this snapshot that no review has used yet."""
    used = select(JudgeReviewSample.sample_id)
    return list(
        session.exec(
            select(JudgeSample).where(
                JudgeSample.test_id == test_id,
                JudgeSample.snapshot_id == snapshot_id,
                JudgeSample.purpose == SamplePurpose.REVIEW,
                JudgeSample.status == SampleStatus.OK,
                col(JudgeSample.id).not_in(used),
            )
        ).all()
    )


def _already_reviewed(session: Session, test_id: str, snapshot_id: str) -> bool:
    return (
        session.exec(
            select(Review.id).where(
                Review.test_id == test_id,
                Review.reviewer_kind == ReviewerKind.AI,
                Review.judge_snapshot_id == snapshot_id,
            )
        ).first()
        is not None
    )


def _prepare(ctx: JobContext, test_id: str) -> _Work | None:
    with ctx.session() as session:
        test = session.get(Test, test_id)
        snapshot = active_snapshot(session)
        if test is None or test.state != TestState.PUBLIC or snapshot is None:
            return None
        if _already_reviewed(session, test.id, snapshot.id):
            return None
        if (snapshot.output_schema_sha256, snapshot.blinding_version) != (
            OUTPUT_SCHEMA_SHA256,
            BLINDING_VERSION,
        ):
            raise JobError("judge_snapshot_outdated")
        if own_injection_signals(session, test):
            place_hold(session, test.id, INJECTION_HOLD_CODE)
        bounds = EvidenceBounds.from_json(snapshot.evidence_bounds)
        raw = build_evidence(session, ctx.storage, test, bounds)
        blinder = blinder_for_test(session, test)
        evidence = JudgeEvidence(blinder.blind_sections(raw.sections), raw.image_urls)
        done = _open_samples(session, test.id, snapshot.id)
        filled = {(sample.round, sample.requested_model) for sample in done}
        missing = [
            SampleSlot(round_, model)
            for round_ in range(snapshot.samples_per_review)
            for model in snapshot.model_ids
            if (round_, model) not in filled
        ]
        return _Work(snapshot, test.contributor_id, evidence, missing, done)


def _defer(ctx: JobContext, test_id: str) -> None:
    """Budget spent: the review waits for the next UTC day in a job of its own."""
    with ctx.session() as session:
        delay = budget.seconds_to_next_day() + _NEXT_DAY_MARGIN
        enqueue_unless_pending(session, JUDGE_REVIEW, test_id, delay_seconds=delay)
    logger.info("judge review of %s deferred to the next UTC day (budget spent)", test_id)


def _reserve(ctx: JobContext, work: _Work, samples: int) -> budget.Reservation | None:
    settings = ctx.settings
    with ctx.session() as session:
        return budget.reserve(
            session,
            samples,
            daily_limit=settings.judge_daily_sample_budget,
            contributor_id=work.contributor_id,
            contributor_limit=settings.judge_contributor_daily_samples,
        )


def _ask(
    ctx: JobContext, client: JudgePort, work: _Work, slot: SampleSlot, test_id: str
) -> list[JudgeSample] | None:
    """Samples for one slot, stored and settled; None when the budget refused.

    Each request reserves, before it is sent, what it may cost: its samples for the first
    try and for every retry the client itself may make. Settling counts every request that
    may have reached the judge, whatever came back (an error status, a body cut short, a
    dropped connection); only one whose connection was never made is free.
    """
    per_request = work.snapshot.panel_seats
    per_reservation = per_request * (1 + ctx.settings.judge_max_retries)
    reservation = _reserve(ctx, work, per_reservation)
    if reservation is None:
        return None
    extra: list[budget.Reservation] = []

    def may_retry() -> bool:
        more = _reserve(ctx, work, per_reservation)
        if more is not None:
            extra.append(more)
        return more is not None

    try:
        drawn = draw(client, work.snapshot, slot, work.evidence, SamplePurpose.REVIEW, may_retry)
    except JudgeClientError as exc:
        _failed(ctx, work, slot, test_id, exc, [reservation, *extra])
        raise JobError(exc.code) from exc
    with ctx.session() as session:
        for sample in drawn.samples:
            sample.test_id = test_id
            session.add(sample)
        if drawn.redactions:
            record_redactions(session, JUDGE, drawn.redactions)
            place_hold(session, test_id, HOLD_JUDGE_REDACTED)
        used_left = drawn.billed(per_request)
        for item in [reservation, *extra]:
            used = min(used_left, item.samples)
            used_left -= used
            first = item is reservation
            budget.settle(
                session,
                item,
                used,
                prompt_tokens=drawn.prompt_tokens if first else 0,
                completion_tokens=drawn.completion_tokens if first else 0,
                metered=drawn.metered if first else 0,
            )
    return [sample for sample in drawn.samples if sample.status == SampleStatus.OK]


def _failed(
    ctx: JobContext,
    work: _Work,
    slot: SampleSlot,
    test_id: str,
    exc: JudgeClientError,
    reservations: list[budget.Reservation],
) -> None:
    """Settle a slot whose request failed, and record the failure as a sample.

    The failing request is the last reservation's; any before it were answered in full (the
    first try of a re-ask), so they count whole. The failing one counts its requests that
    may have reached the judge.
    """
    per_request = work.snapshot.panel_seats
    with ctx.session() as session:
        *answered, failing = reservations
        for item in answered:
            budget.settle(session, item, item.samples)
        budget.settle(session, failing, min(failing.samples, per_request * exc.sent))
        session.add(
            JudgeSample(
                snapshot_id=work.snapshot.id,
                purpose=SamplePurpose.REVIEW,
                test_id=test_id,
                round=slot.round,
                requested_model=slot.model,
                latency_ms=exc.latency_ms,
                status=SampleStatus.FAILED,
                error_code=exc.code,
            )
        )


def _append_review(ctx: JobContext, test_id: str, work: _Work, samples: list[JudgeSample]) -> None:
    scores = [sample.score for sample in samples if sample.score is not None]
    score = median_score(scores)
    closest = min(samples, key=lambda sample: (abs((sample.score or 0) - score), sample.id))
    with ctx.session() as session:
        test = session.get(Test, test_id, with_for_update=True)
        if test is None or test.state != TestState.PUBLIC:
            return
        if _already_reviewed(session, test_id, work.snapshot.id):
            return
        review = Review(
            test_id=test_id,
            reviewer_id=None,
            reviewer_kind=ReviewerKind.AI,
            score=score,
            reasoning=closest.reasoning,
            judge_snapshot_id=work.snapshot.id,
            policy_version=work.snapshot.rubric_version[:32],
        )
        session.add(review)
        session.flush()
        for sample in samples:
            session.add(JudgeReviewSample(review_id=review.id, sample_id=sample.id))
        if any(sample.injection_suspected for sample in samples):
            place_hold(session, test_id, HOLD_JUDGE_SUSPECTED)
        audit(
            session,
            AuditAction.REVIEW_AI_ADDED,
            ("review", review.id),
            actor_id=None,
            detail={
                "test_id": test_id,
                "judge_snapshot_id": work.snapshot.id,
                "samples": len(samples),
                "spread": spread(scores),
            },
        )
        session.flush()
        refresh_review_state(session, test)


@job_handler(JUDGE_REVIEW)
def review_test(ctx: JobContext, test_id: str) -> None:
    if not ctx.settings.judge_enabled:
        return
    client = ctx.judge
    if client is None:
        return
    work = _prepare(ctx, test_id)
    if work is None:
        return
    deadline = time.monotonic() + ctx.settings.job_lease_seconds * 0.9
    samples = list(work.done)
    for slot in work.missing:
        if time.monotonic() + ctx.settings.judge_timeout_seconds * 2 > deadline:
            # Finish inside the lease; the retry resumes from the samples stored so far.
            raise JobError("judge_lease_short")
        answered = _ask(ctx, client, work, slot, test_id)
        if answered is None:
            _defer(ctx, test_id)
            return
        samples.extend(answered)
    filled = {(sample.round, sample.requested_model) for sample in samples}
    if any((slot.round, slot.model) not in filled for slot in work.missing):
        raise JobError("judge_invalid_reply")
    _append_review(ctx, test_id, work, samples)
    logger.info("judge review of %s appended (%d samples)", test_id, len(samples))
