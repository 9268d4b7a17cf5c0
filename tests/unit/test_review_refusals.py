"""The review form checks both fields by the service's own rules before it sends, so each
refusal is said beside its field and none hides another."""

from __future__ import annotations

import pytest

from benchmax.services.moderation.reviews import clean_reasoning, parse_score
from benchmax.state.actions_panel import _refusal

SCORE = "The score is a whole number from 0 to 100."
SHORT = "The reasoning must be at least 20 characters."


@pytest.mark.parametrize("typed", ["150", "101", "-4", "7.5", "", "  ", "abc"])
def test_every_score_the_service_refuses_has_its_message(typed: str) -> None:
    assert _refusal(parse_score, typed) == SCORE


@pytest.mark.parametrize("typed", ["0", "72", "100", " 55 "])
def test_a_score_the_service_takes_has_none(typed: str) -> None:
    assert _refusal(parse_score, typed) == ""


def test_reasoning_refusals_have_their_messages() -> None:
    assert _refusal(clean_reasoning, "short") == SHORT
    assert _refusal(clean_reasoning, "   " + "a" * 19 + "\u200b") == SHORT
    assert "at most" in _refusal(clean_reasoning, "a" * 10_000)
    assert _refusal(clean_reasoning, "Clear, complete and it runs as described.") == ""
