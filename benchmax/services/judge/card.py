"""What anyone may see about the judge: its card, and the samples behind each AI review.

A judge card shows what a snapshot pinned (model ids, template text and hash, schema hash,
rubric, k, seed, blinding rules, evidence bounds, the calibration set's hash), every
calibration run's metrics and date (never the calibration items), and how its reviews agree
with people's (``agreement``). An AI review's summary is
the median it stored, the spread and count of its samples and the models that answered.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from benchmax.models import (
    JudgeCalibrationRun,
    JudgeReviewSample,
    JudgeSample,
    JudgeSnapshot,
)
from benchmax.models._base import is_public_id
from benchmax.services.dates import JsonReady
from benchmax.services.dto import from_row
from benchmax.services.judge.agreement import JudgeAgreement, judge_agreement
from benchmax.services.judge.stats import median_score, spread


@dataclass(frozen=True)
class CalibrationSummary:
    id: str
    created_at: datetime
    passed: bool
    item_count: int
    mae: float | None
    spearman: float | None
    median_spread: float | None
    twins: dict[str, Any]
    failures: list[str]


@dataclass(frozen=True)
class JudgeCard(JsonReady):
    id: str
    name: str
    provider_label: str
    base_url_host: str
    model_ids: list[str]
    panel: bool
    state: str
    prompt_template: str
    prompt_template_sha256: str
    output_schema_sha256: str
    rubric_version: str
    samples_per_review: int
    temperature: float
    seed: int
    max_output_tokens: int
    blinding_version: str
    evidence_bounds: dict[str, Any]
    calibration_sha256: str
    created_at: datetime
    calibrations: list[CalibrationSummary]
    # How its reviews agree with people's on the same Tests, as of now.
    agreement: JudgeAgreement


@dataclass(frozen=True)
class AiReviewSummary(JsonReady):
    review_id: str
    judge_snapshot_id: str
    median: int
    spread: int
    samples: int
    scores: list[int]
    models: list[str]


def _snapshot(session: Session, snapshot_id: str) -> JudgeSnapshot | None:
    return session.get(JudgeSnapshot, snapshot_id) if is_public_id(snapshot_id) else None


def has_judge_card(session: Session, snapshot_id: str) -> bool:
    """Whether ``/judges/{snapshot_id}`` shows a card (every snapshot has one)."""
    return _snapshot(session, snapshot_id) is not None


def judge_card(session: Session, snapshot_id: str) -> JudgeCard | None:
    snapshot = _snapshot(session, snapshot_id)
    if snapshot is None:
        return None
    runs = session.exec(
        select(JudgeCalibrationRun)
        .where(JudgeCalibrationRun.snapshot_id == snapshot.id)
        .order_by(col(JudgeCalibrationRun.created_at).desc(), col(JudgeCalibrationRun.id))
    ).all()
    return from_row(
        JudgeCard,
        snapshot,
        calibrations=[from_row(CalibrationSummary, run) for run in runs],
        agreement=judge_agreement(session, snapshot.id, snapshot.panel),
    )


def ai_review_summaries(
    session: Session, reviews: list[tuple[str, str | None]]
) -> dict[str, AiReviewSummary]:
    """Summaries for the AI reviews among ``(review id, judge snapshot id)`` pairs."""
    wanted = {review_id: snapshot for review_id, snapshot in reviews if snapshot}
    if not wanted:
        return {}
    rows = session.exec(
        select(JudgeReviewSample.review_id, JudgeSample)
        .join(JudgeSample, col(JudgeSample.id) == JudgeReviewSample.sample_id)
        .where(col(JudgeReviewSample.review_id).in_(list(wanted)))
        .order_by(col(JudgeSample.round), col(JudgeSample.seat))
    ).all()
    grouped: dict[str, list[JudgeSample]] = {}
    for review_id, sample in rows:
        grouped.setdefault(review_id, []).append(sample)
    summaries = {}
    for review_id, samples in grouped.items():
        scores = [sample.score for sample in samples if sample.score is not None]
        summaries[review_id] = AiReviewSummary(
            review_id=review_id,
            judge_snapshot_id=wanted[review_id] or "",
            median=median_score(scores) if scores else 0,
            spread=spread(scores),
            samples=len(samples),
            scores=scores,
            models=sorted({s.reported_model or s.requested_model for s in samples}),
        )
    return summaries


def judge_state(session: Session, snapshot_id: str) -> str:
    """The snapshot's state ("" for no such id): part of its card's cache validator, since
    activating a judge changes no stamp the data version reads."""
    snapshot = session.get(JudgeSnapshot, snapshot_id) if is_public_id(snapshot_id) else None
    return str(snapshot.state) if snapshot else ""
