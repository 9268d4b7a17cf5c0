"""Asking the judge once: one request, a fresh nonce, every answer checked and turned into samples.

Reviews and calibration share this. A request whose answers include invalid ones (bad JSON,
wrong schema, wrong nonce, refusal) is asked again once, with a new nonce, and only the
answers that were invalid are taken from the second reply. Transport failures are not
retried here; they raise ``JudgeClientError`` for the caller's backoff.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from benchmax.adapters.judge import JudgeAnswer, JudgeCall, JudgePort, JudgeReply
from benchmax.models import JudgeSample, JudgeSnapshot, SamplePurpose, SampleStatus
from benchmax.services.judge.evidence import JudgeEvidence
from benchmax.services.judge.prompt import (
    SCHEMA_NAME,
    VERDICT_SCHEMA,
    build_messages,
    new_nonce,
)
from benchmax.services.judge.verdict import VerdictError, parse_verdict


@dataclass(frozen=True)
class SampleSlot:
    """Where a sample belongs: review round and requested model."""

    round: int
    model: str


@dataclass
class Drawn:
    """The samples of one slot (several for a panel) and what the request cost."""

    samples: list[JudgeSample]
    requests: int
    answers: int
    prompt_tokens: int
    completion_tokens: int
    metered: int


def _sample(
    snapshot: JudgeSnapshot,
    slot: SampleSlot,
    purpose: SamplePurpose,
    reply: JudgeReply,
    answer: JudgeAnswer,
    nonce: str,
) -> JudgeSample:
    sample = JudgeSample(
        snapshot_id=snapshot.id,
        purpose=purpose,
        round=slot.round,
        requested_model=slot.model[:200],
        seat=answer.seat,
        reported_model=answer.reported_model or reply.reported_model,
        system_fingerprint=answer.system_fingerprint,
        prompt_tokens=answer.prompt_tokens,
        completion_tokens=answer.completion_tokens,
        latency_ms=reply.latency_ms,
        status=SampleStatus.FAILED,
        error_code=answer.error_code,
    )
    if answer.content is None:
        sample.error_code = sample.error_code or "reply_empty"
        return sample
    try:
        verdict = parse_verdict(answer.content, nonce)
    except VerdictError as exc:
        sample.error_code = exc.code
        return sample
    sample.status = SampleStatus.OK
    sample.error_code = ""
    sample.score = verdict.score
    sample.reasoning = verdict.reasoning
    sample.injection_suspected = verdict.injection_suspected
    return sample


def _request(
    client: JudgePort, snapshot: JudgeSnapshot, model: str, evidence: JudgeEvidence
) -> tuple[JudgeReply, str]:
    nonce = new_nonce()
    messages = build_messages(
        snapshot.prompt_template,
        snapshot.rubric_version,
        nonce,
        evidence.sections,
        evidence.image_urls,
    )
    call = JudgeCall(
        model=model,
        messages=messages,
        schema_name=SCHEMA_NAME,
        schema=VERDICT_SCHEMA,
        seed=snapshot.seed,
        temperature=snapshot.temperature,
        max_output_tokens=snapshot.max_output_tokens,
    )
    return client.complete(call), nonce


def draw(
    client: JudgePort,
    snapshot: JudgeSnapshot,
    slot: SampleSlot,
    evidence: JudgeEvidence,
    purpose: SamplePurpose,
    may_retry: Callable[[], bool] = lambda: True,
) -> Drawn:
    """The samples for ``slot``; ``may_retry`` is asked (e.g. for budget) before a re-ask."""
    reply, nonce = _request(client, snapshot, slot.model, evidence)
    samples = [_sample(snapshot, slot, purpose, reply, answer, nonce) for answer in reply.answers]
    drawn = Drawn(samples, 1, len(reply.answers), 0, 0, 0)
    failed = [index for index, sample in enumerate(samples) if sample.status != SampleStatus.OK]
    if failed and may_retry():
        retry, retry_nonce = _request(client, snapshot, slot.model, evidence)
        drawn.requests += 1
        drawn.answers += len(retry.answers)
        fresh = [_sample(snapshot, slot, purpose, retry, a, retry_nonce) for a in retry.answers]
        by_seat = {sample.seat: sample for sample in fresh}
        for index in failed:
            replacement = by_seat.get(samples[index].seat)
            if replacement is not None and replacement.status == SampleStatus.OK:
                # The failed first answer is kept too: every answer is on record.
                drawn.samples.append(replacement)
        drawn.samples.extend(
            sample for sample in fresh if sample.status != SampleStatus.OK and sample.seat in
            {samples[index].seat for index in failed}
        )  # fmt: skip
    for sample in drawn.samples:
        if sample.prompt_tokens is not None and sample.completion_tokens is not None:
            drawn.prompt_tokens += sample.prompt_tokens
            drawn.completion_tokens += sample.completion_tokens
            drawn.metered += 1
    return drawn
