"""95% intervals and rank bands, on fixtures computed by hand (docs/showcase.md shows the first)."""

from __future__ import annotations

from benchmax.services.leaderboard.intervals import (
    band_text,
    half_width_bp,
    interval,
    pooled_variance_bp2,
    rank_bands,
)
from benchmax.services.leaderboard.scoring import bayesian_score_bp, mean_bp


def _bands(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    firsts, lasts = rank_bands([low for low, _ in spans], [high for _, high in spans])
    return list(zip(firsts, lasts, strict=True))


def test_one_review_of_100_and_ten_of_78_are_statistically_tied() -> None:
    scores = [100, *([78] * 10)]
    prior = mean_bp(scores)
    assert prior == 8000  # C = 880 / 11 = 80.00
    # ((100 - 80)² + 10·(78 - 80)²) / 11 = 40 points² = 400,000 bp²
    variance = pooled_variance_bp2(scores, prior)
    assert variance == 400_000
    lucky = bayesian_score_bp([100], 3, prior)  # (100 + 240) / 4 = 85.00
    steady = bayesian_score_bp([78] * 10, 3, prior)  # (780 + 240) / 13 = 78.46
    assert (lucky, steady) == (8500, 7846)
    # 1.96·√(40 / 4) = 6.198 → 619 bp; 1.96·√(40 / 13) = 3.438 → 343 bp
    assert half_width_bp(variance, 1, 3) == 619
    assert half_width_bp(variance, 10, 3) == 343
    spans = [interval(lucky, 619), interval(steady, 343)]
    assert spans == [(7881, 9119), (7503, 8189)]
    assert _bands(spans) == [(1, 2), (1, 2)]
    assert [band_text(*band) for band in _bands(spans)] == ["#1\N{EN DASH}#2"] * 2


def test_a_row_whose_interval_clears_the_others_has_a_band_of_its_own() -> None:
    spans = [(9000, 9500), (7000, 8000), (7500, 8500), (1000, 2000)]
    assert _bands(spans) == [(1, 1), (2, 3), (2, 3), (4, 4)]
    assert band_text(4, 4) == "#4"


def test_touching_bounds_overlap() -> None:
    # The upper bound of one equals the lower bound of the other: neither clears the other.
    assert _bands([(8000, 9000), (7000, 8000)]) == [(1, 2), (1, 2)]


def test_equal_scores_share_every_place() -> None:
    scores = [70, 70, 70]
    prior = mean_bp(scores)
    variance = pooled_variance_bp2(scores, prior)
    assert variance == 0
    span = interval(bayesian_score_bp([70], 3, prior), half_width_bp(variance, 1, 3))
    assert span == (7000, 7000)
    assert _bands([span] * 3) == [(1, 3)] * 3


def test_a_single_row_is_first_and_intervals_stay_within_0_and_100_points() -> None:
    assert _bands([(4000, 6000)]) == [(1, 1)]
    assert interval(9900, 500) == (9400, 10000)
    assert interval(100, 500) == (0, 600)
    assert _bands([]) == []
