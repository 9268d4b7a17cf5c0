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


def interval(score_bp: int, half_bp: int) -> tuple[int, int]:
    """``(low, high)`` in basis points, clamped to 0-100 points."""
    return max(0, score_bp - half_bp), min(_MAX_BP, score_bp + half_bp)


def rank_bands(lows: Sequence[int], highs: Sequence[int]) -> tuple[list[int], list[int]]:
    """Each row's first and last possible place, in the order given (two sorts, n log n).

    Plain integer lists rather than an object per row: a snapshot has 100,000 of them.
    """
    sorted_lows = sorted(lows)
    sorted_highs = sorted(highs)
    total = len(lows)
    # Places above me: rows whose lower bound is above my upper bound.
    firsts = [1 + total - bisect_right(sorted_lows, high) for high in highs]
    # Places down to: rows whose upper bound is at or above my lower bound (me included).
    lasts = [total - bisect_left(sorted_highs, low) for low in lows]
    return firsts, lasts


def band_text(first: int, last: int) -> str:
    """ "#3", or "#3" en dash "#7" for a band, as a page shows it."""
    return f"#{first}" if first == last else f"#{first}\N{EN DASH}#{last}"
