"""How sure a snapshot is of its order: a 95% interval per score and a rank band per row.

The interval comes from the same shrinkage model as the score. The prior is ``m`` pseudo-reviews
at ``C``; review scores are taken to scatter around a Test's true score with the pooled
variance ``s2`` of every counted score in the snapshot about ``C``. The posterior of a Test
with ``n`` counted reviews is then approximately normal, centred on its Bayesian score, with
variance ``s2 / (n + m)``, so its 95% interval is

    score +/- 1.96 * sqrt(s2 / (n + m))

clamped to 0-100 points. Everything stays integer, like the score: ``s2`` in basis points
squared (rounded half up), the half-width ``floor(sqrt(1.96^2 * s2 / (n + m)))`` by
``math.isqrt``, so the sealed rows are the same bytes on every machine.

A row's rank band (LMArena's rule) runs from 1 + the number of rows whose lower bound is
above its upper bound, to the number of rows whose upper bound is at or above its lower bound
(itself included): the best and worst places it could hold among the rows its interval
overlaps.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from benchmax.services.leaderboard.scoring import BP_PER_POINT, round_div

INTERVAL_ID = "normal-posterior-95-pooled-variance-v1"
RANK_BAND_ID = "overlapping-intervals-v1"
_MAX_BP = 100 * BP_PER_POINT
# 1.96 squared as a fraction, so the half-width is one integer square root: 38416 / 10000.
_Z2_NUMERATOR = 196 * 196
_Z2_DENOMINATOR = 100 * 100


def pooled_variance_bp2(scores: Iterable[int], prior_mean_bp: int) -> int:
    """The mean squared distance of whole-point ``scores`` from ``C``, in basis points squared."""
    total = count = 0
    for score in scores:
        total += (score * BP_PER_POINT - prior_mean_bp) ** 2
        count += 1
    return round_div(total, count) if count else 0


def half_width_bp(variance_bp2: int, review_count: int, prior_weight: int) -> int:
    """Half of the 95% interval for a Test with ``review_count`` counted reviews."""
    weight = review_count + prior_weight
    if weight == 0:
        return 0
    return math.isqrt(variance_bp2 * _Z2_NUMERATOR // (weight * _Z2_DENOMINATOR))


@dataclass(frozen=True)
class Interval:
    low_bp: int
    high_bp: int


def interval(score_bp: int, half_bp: int) -> Interval:
    return Interval(max(0, score_bp - half_bp), min(_MAX_BP, score_bp + half_bp))


def rank_bands(intervals: Sequence[Interval]) -> list[tuple[int, int]]:
    """``(first, last)`` place each row could hold, in the order given (two sorts, n log n)."""
    lows = sorted(item.low_bp for item in intervals)
    highs = sorted(item.high_bp for item in intervals)
    total = len(intervals)
    return [
        (
            1 + total - bisect_right(lows, item.high_bp),  # lower bound above my upper bound
            total - bisect_left(highs, item.low_bp),  # upper bound at or above my lower bound
        )
        for item in intervals
    ]


def band_text(first: int, last: int) -> str:
    """ "#3", or "#3" en dash "#7" for a band, as a page shows it."""
    return f"#{first}" if first == last else f"#{first}\N{EN DASH}#{last}"
