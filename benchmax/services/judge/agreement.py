"""How far a judge snapshot agrees with the people who review the same Tests.

Published agreement figures for LLM judges vary widely from setup to setup, so a reader needs
this judge's own. For one judge snapshot the service pairs, per public Test, the judge's
current AI review with the mean of the current human and admin reviews of the same Test (a
review is current when nothing corrects it; human reviews come only from approved reviewers,
who are the only people allowed to review). Over those shared Tests it reports:

* ``mean_absolute_difference``, in points;
* ``within_10``: the share of Tests where the two differ by 10 points or less;
* ``spearman``: Spearman's rho of the two orders (0 when either side is constant);
* ``kappa``: quadratic-weighted Cohen's kappa over ten 10-point bins (0-9, ..., 90-100),
  the chance-corrected agreement: 1 is perfect, 0 what chance gives, below 0 worse than
  chance; None when both sides sit in a single bin (no variation to agree on).

Below ``MIN_SHARED`` shared Tests the figures are withheld ("not enough overlap yet"): five
pairs say little. For a panel, each seat's figures come from the median of that seat's own
samples behind the judge's reviews.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select as select_columns
from sqlmodel import Session, col

from benchmax.models import JudgeReviewSample, JudgeSample, Review, ReviewerKind, Test, TestState
from benchmax.services.judge.stats import median_score, spearman

MIN_SHARED = 10
BINS = 10
NOT_ENOUGH = "not_enough_overlap"
ENOUGH = "ok"


def score_bin(score: float) -> int:
    return min(BINS - 1, int(score // 10))


def weighted_kappa(first: Sequence[float], second: Sequence[float]) -> float | None:
    """Quadratic-weighted Cohen's kappa of two raters over ``BINS`` 10-point bins."""
    n = len(first)
    observed = [[0] * BINS for _ in range(BINS)]
    for a, b in zip(first, second, strict=True):
        observed[score_bin(a)][score_bin(b)] += 1
    rows = [sum(line) for line in observed]
    cols = [sum(observed[i][j] for i in range(BINS)) for j in range(BINS)]
    disagreement = expected = 0.0
    for i in range(BINS):
        for j in range(BINS):
            weight = (i - j) ** 2
            disagreement += weight * observed[i][j]
            expected += weight * rows[i] * cols[j] / n
    if expected == 0:
        return None
    return 1 - disagreement / expected


@dataclass(frozen=True)
class Agreement:
    """One set of figures; every number is None when ``status`` is ``not_enough_overlap``."""

    shared_tests: int
    status: str
    minimum_shared: int = MIN_SHARED
    mean_absolute_difference: float | None = None
    within_10: float | None = None
    spearman: float | None = None
    kappa: float | None = None

    @classmethod
    def of(cls, pairs: Sequence[tuple[float, float]]) -> Agreement:
        if len(pairs) < MIN_SHARED:
            return cls(shared_tests=len(pairs), status=NOT_ENOUGH)
        judge = [a for a, _ in pairs]
        people = [b for _, b in pairs]
        gaps = [abs(a - b) for a, b in pairs]
        kappa = weighted_kappa(judge, people)
        return cls(
            shared_tests=len(pairs),
            status=ENOUGH,
            mean_absolute_difference=round(statistics.fmean(gaps), 2),
            within_10=round(sum(gap <= 10 for gap in gaps) / len(gaps), 3),
            spearman=round(spearman(judge, people), 3),
            kappa=None if kappa is None else round(kappa, 3),
        )


@dataclass(frozen=True)
class JudgeAgreement:
    overall: Agreement
    # Panel seat → its figures (empty for a single-model judge).
    seats: dict[str, Agreement] = field(default_factory=dict)
    method: str = (
        "Judge review vs the mean of current human and admin reviews of the same public Test; "
        "kappa is quadratic-weighted Cohen's kappa over 10-point bins."
    )


def _current_reviews(session: Session, snapshot_id: str) -> list[Any]:
    """Current reviews of public Tests the judge reviewed: its own, and people's."""
    judged = select_columns(col(Review.test_id)).where(col(Review.judge_snapshot_id) == snapshot_id)
    corrected = select_columns(col(Review.corrects_review_id)).where(
        col(Review.corrects_review_id).is_not(None)
    )
    return list(
        session.execute(
            select_columns(
                col(Review.id),
                col(Review.test_id),
                col(Review.score),
                col(Review.reviewer_kind),
                col(Review.judge_snapshot_id),
            )
            .join(Test, col(Test.id) == Review.test_id)
            .where(
                col(Test.state) == TestState.PUBLIC,
                col(Review.test_id).in_(judged),
                col(Review.id).not_in(corrected),
            )
            .order_by(col(Review.created_at), col(Review.id))
        ).all()
    )


def _seat_scores(session: Session, review_ids: Mapping[str, str]) -> dict[str, dict[str, int]]:
    """Seat → Test → the median of that seat's samples behind the judge's review."""
    if not review_ids:
        return {}
    rows = session.execute(
        select_columns(
            col(JudgeReviewSample.review_id), col(JudgeSample.seat), col(JudgeSample.score)
        )
        .join(JudgeSample, col(JudgeSample.id) == JudgeReviewSample.sample_id)
        .where(col(JudgeReviewSample.review_id).in_(list(review_ids)))
    ).all()
    samples: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for review_id, seat, score in rows:
        if seat and score is not None:
            samples[seat][review_ids[review_id]].append(score)
    return {
        seat: {test_id: median_score(scores) for test_id, scores in tests.items()}
        for seat, tests in samples.items()
    }


def judge_agreement(session: Session, snapshot_id: str, panel: bool) -> JudgeAgreement:
    """The judge snapshot's agreement with people, now (it changes as reviews accumulate)."""
    judge: dict[str, int] = {}
    judge_review: dict[str, str] = {}
    people: dict[str, list[int]] = defaultdict(list)
    for review_id, test_id, score, kind, judged_by in _current_reviews(session, snapshot_id):
        if kind == ReviewerKind.AI:
            if judged_by == snapshot_id:  # the latest current one stands
                judge[test_id] = score
                judge_review[test_id] = review_id
        elif kind in (ReviewerKind.HUMAN, ReviewerKind.ADMIN):
            people[test_id].append(score)
    shared = sorted(set(judge) & set(people))
    mean = {test_id: statistics.fmean(people[test_id]) for test_id in shared}
    overall = Agreement.of([(judge[test_id], mean[test_id]) for test_id in shared])
    seats: dict[str, Agreement] = {}
    if panel:
        wanted = {judge_review[test_id]: test_id for test_id in shared}
        for seat, scores in _seat_scores(session, wanted).items():
            seats[seat] = Agreement.of([(scores[t], mean[t]) for t in shared if t in scores])
    return JudgeAgreement(overall=overall, seats=seats)
