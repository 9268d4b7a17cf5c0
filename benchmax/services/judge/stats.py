"""The few statistics the judge needs, in plain Python: median, spread, MAE and Spearman's rho."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence


def median_score(scores: Sequence[int]) -> int:
    """The median, rounded half up to a whole score (reviews store whole numbers)."""
    return int(statistics.median(scores) + 0.5)


def spread(scores: Sequence[int]) -> int:
    return max(scores) - min(scores) if scores else 0


def mean_absolute_error(predicted: Sequence[float], expected: Sequence[float]) -> float:
    return sum(abs(p - e) for p, e in zip(predicted, expected, strict=True)) / len(predicted)


def _ranks(values: Sequence[float]) -> list[float]:
    """Ranks from 1, ties sharing their average rank."""
    order = sorted(range(len(values)), key=lambda index: values[index])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for position in range(start, end + 1):
            ranks[order[position]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def spearman(first: Sequence[float], second: Sequence[float]) -> float:
    """Spearman's rank correlation (Pearson's r over the ranks); 0 when either is constant."""
    a, b = _ranks(first), _ranks(second)
    mean_a, mean_b = sum(a) / len(a), sum(b) / len(b)
    covariance = sum((x - mean_a) * (y - mean_b) for x, y in zip(a, b, strict=True))
    deviation_a = math.sqrt(sum((x - mean_a) ** 2 for x in a))
    deviation_b = math.sqrt(sum((y - mean_b) ** 2 for y in b))
    if deviation_a == 0 or deviation_b == 0:
        return 0.0
    return covariance / (deviation_a * deviation_b)
