"""Judge agreement figures on fixtures with known answers, without a database."""

from __future__ import annotations

import pytest

from benchmax.services.judge.agreement import MIN_SHARED, NOT_ENOUGH, Agreement, weighted_kappa

PEOPLE = [5.0, 15.0, 25.0, 35.0, 45.0, 55.0, 65.0, 75.0, 85.0, 95.0, 42.0, 88.0]


def test_perfect_agreement() -> None:
    figures = Agreement.of([(score, score) for score in PEOPLE])
    assert figures.status == "ok"
    assert figures.shared_tests == len(PEOPLE)
    assert figures.mean_absolute_difference == 0
    assert figures.within_10 == 1
    assert figures.spearman == 1
    assert figures.kappa == 1


def test_a_constant_judge_agrees_no_better_than_chance() -> None:
    figures = Agreement.of([(50.0, score) for score in PEOPLE])
    assert figures.spearman == 0
    assert figures.kappa == 0
    # |50 - s| ≤ 10 only for 45 and 55 (42 is 8 away too)
    assert figures.within_10 == round(3 / len(PEOPLE), 3)
    assert figures.mean_absolute_difference == pytest.approx(
        sum(abs(50 - s) for s in PEOPLE) / len(PEOPLE), abs=0.01
    )


def test_a_judge_that_reverses_the_order() -> None:
    figures = Agreement.of([(100 - score, score) for score in PEOPLE])
    assert figures.spearman == -1
    assert figures.kappa is not None
    assert figures.kappa < -0.9


def test_not_enough_overlap_withholds_every_figure() -> None:
    figures = Agreement.of([(score, score) for score in PEOPLE[: MIN_SHARED - 1]])
    assert figures.status == NOT_ENOUGH
    assert figures.shared_tests == MIN_SHARED - 1
    assert (
        figures.mean_absolute_difference,
        figures.within_10,
        figures.spearman,
        figures.kappa,
    ) == (None, None, None, None)
    assert Agreement.of([(s, s) for s in PEOPLE[:MIN_SHARED]]).status == "ok"


def test_kappa_on_a_hand_computed_table() -> None:
    # Two raters, bins 0 and 1 only: observed [[1, 1], [0, 2]], margins rows (2, 2), cols (1, 3).
    # Weighted disagreement 1·1 = 1; expected 1·(2·3/4) + 1·(2·1/4) = 2 → κ = 1 - 1/2 = 0.5
    assert weighted_kappa([5, 5, 15, 15], [5, 15, 15, 15]) == pytest.approx(0.5)
    assert weighted_kappa([50, 50], [55, 52]) is None  # one bin each: nothing to agree on
