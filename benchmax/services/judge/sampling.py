"""Asking the judge once: one request, a fresh nonce, every answer checked and turned into samples.

Reviews and calibration share this. Every reply passes the derived-text redaction
(``safety/redact.py``) as a whole — each answer's content, seat, reported model and
fingerprint, and anything else it carries — before any of it becomes a sample, so a judge
talked into spelling out a key leaves only a marker; ``Drawn.redactions`` says how many were
removed, for the caller to count and to hold the Test.

A request whose answers include invalid ones (bad JSON, wrong schema, wrong nonce, refusal)
is asked again once, with a new nonce, and only the answers that were invalid are taken from
the second reply. Transport failures are not retried here; they raise ``JudgeClientError``
for the caller's backoff.
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
from benchmax.services.safety.redact import Redacted, redact

# The sample's label columns; cut after redaction (the reply arrives redacted).
_LABEL_CHARS = 200


def _clipped(label: str) -> str:
    return label if len(label) <= _LABEL_CHARS else label[: _LABEL_CHARS - 1] + "…"


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
    redactions: int = 0
    # Requests beyond the one answered, per reply: the client's own retries that may have
    # reached the judge before it answered.
    unanswered_sends: int = 0

    def billed(self, per_request: int) -> int:
        """Samples these requests may have cost: every answer, and every retry in full."""
        return self.answers + per_request * self.unanswered_sends


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
        requested_model=slot.model[:_LABEL_CHARS],
        seat=_clipped(answer.seat),
        reported_model=_clipped(answer.reported_model or reply.reported_model),
        system_fingerprint=_clipped(answer.system_fingerprint),
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


def _ask(
    client: JudgePort, snapshot: JudgeSnapshot, model: str, evidence: JudgeEvidence
) -> tuple[Redacted[JudgeReply], str]:
    reply, nonce = _request(client, snapshot, model, evidence)
    return redact(reply), nonce


def draw(
    client: JudgePort,
    snapshot: JudgeSnapshot,
    slot: SampleSlot,
    evidence: JudgeEvidence,
    purpose: SamplePurpose,
    may_retry: Callable[[], bool] = lambda: True,
) -> Drawn:
    """The samples for ``slot``; ``may_retry`` is asked (e.g. for budget) before a re-ask."""
    cleaned, nonce = _ask(client, snapshot, slot.model, evidence)
    reply = cleaned.value
    samples = [_sample(snapshot, slot, purpose, reply, answer, nonce) for answer in reply.answers]
    drawn = Drawn(samples, 1, len(reply.answers), 0, 0, 0, cleaned.count, reply.sent - 1)
    failed = [index for index, sample in enumerate(samples) if sample.status != SampleStatus.OK]
    if failed and may_retry():
        cleaned_retry, retry_nonce = _ask(client, snapshot, slot.model, evidence)
        retry = cleaned_retry.value
        drawn.requests += 1
        drawn.answers += len(retry.answers)
        drawn.redactions += cleaned_retry.count
        drawn.unanswered_sends += retry.sent - 1
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
