"""The showcase's arithmetic, prompt keys and similarity, without a database."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta

import pytest

from benchmax.models import normalise_prompt, prompt_key
from benchmax.services.leaderboard.scoring import (
    Scored,
    bayesian_score_bp,
    canonical_json,
    mean_bp,
    median_text,
    points_text,
    ranked,
    seal,
)
from benchmax.services.prompts.similar import THRESHOLD, shingles, signature, similarity

C_60 = 6000


@pytest.mark.parametrize(
    ("scores", "expected_bp"),
    [
        ([100], 7000),  # one lucky 100 → 70.0
        ([85, 85, 85], 7250),  # three 85s → 72.5
        ([78] * 10, 7385),  # ten 78s → 73.8(5)
        ([], 6000),  # no reviews sit at C
    ],
)
def test_worked_examples_with_c_60_and_m_3(scores: list[int], expected_bp: int) -> None:
    assert bayesian_score_bp(scores, 3, C_60) == expected_bp


def test_one_lucky_review_cannot_beat_many_good_ones() -> None:
    lucky = bayesian_score_bp([100], 3, C_60)
    steady = bayesian_score_bp([78] * 10, 3, C_60)
    assert steady > lucky


def test_prior_mean_and_rounding_are_integer_and_half_up() -> None:
    assert mean_bp([60, 61]) == 6050
    assert mean_bp([1, 1, 2]) == 133  # 133.33… rounds down
    assert mean_bp([1, 2, 2]) == 167  # 166.67… rounds up
    assert mean_bp([]) == 0
    assert bayesian_score_bp([0], 0, 0) == 0
    assert points_text(7385) == "73.85"
    assert points_text(7000) == "70.00"
    assert median_text([70, 90, 80]) == "80"
    assert median_text([70, 85]) == "77.5"
    assert median_text([]) == ""


def _entry(test_id: str, score_bp: int, n: int, minutes: int) -> Scored:
    published = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=minutes)
    return Scored(test_id, published, score_bp, (70,) * n, tuple(f"r{i}" for i in range(n)))


def test_ties_order_by_reviews_then_publication_then_id_and_share_a_rank() -> None:
    entries = [
        _entry("d", 7000, 2, 5),
        _entry("a", 8000, 1, 0),
        _entry("c", 7000, 3, 9),  # more reviews than b and d: first among the 70s
        _entry("b", 7000, 2, 1),  # earlier than d
        _entry("e", 7000, 2, 5),  # same time as d: id decides
        _entry("f", 6000, 9, 0),
    ]
    order = [(rank, entry.test_id) for rank, entry in ranked(entries)]
    assert order == [(1, "a"), (2, "c"), (2, "b"), (2, "d"), (2, "e"), (6, "f")]


def test_canonical_json_takes_only_integers_and_strings() -> None:
    assert canonical_json({"b": 1, "a": ["é", 2]}) == '{"a":["é",2],"b":1}'
    for bad in (1.5, True, None, {"x": 0.1}, [None], {1: "a"}):
        with pytest.raises(TypeError):
            canonical_json(bad)


def test_seal_changes_with_any_row_or_policy_value() -> None:
    policy = {"prior_weight": 3, "prior_mean_bp": 6000}
    rows = [{"position": 1, "rank": 1, "test_id": "t1", "score_bp": 7000}]
    base = seal(policy, rows)
    assert base == seal(dict(reversed(policy.items())), rows)  # key order never matters
    assert seal(policy, [{**rows[0], "score_bp": 7001}]) != base
    assert seal({**policy, "prior_weight": 4}, rows) != base


def _whole_document_sha256(policy: dict, rows: list[dict], previous: str | None) -> str:
    """The seal as docs/showcase.md tells anyone to compute it: one dump of the whole body."""
    body: dict = {"policy": policy, "rows": rows}
    if previous is not None:
        body["previous_sha256"] = previous
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@pytest.mark.parametrize("count", [0, 1, 999, 1000, 1001, 2500])
@pytest.mark.parametrize("previous", [None, "", "ab" * 32])
def test_the_streamed_seal_is_the_hash_of_the_whole_document(
    count: int, previous: str | None
) -> None:
    # Batch edges (0, one batch, one more) and text JSON must escape: quotes, backslashes,
    # control characters, markup, and non-ASCII text, which stays as it is.
    texts = ['say "hi"', "back\\slash", "tab\there\n", "</script><b>", "é 模型 🙂", ""]
    rows = [
        {"position": n, "test_id": f"t{n}", "model_key": texts[n % len(texts)], "score_bp": n * 7}
        for n in range(1, count + 1)
    ]
    policy = {"prior_weight": 3, "review_kinds": ["admin", "human"], "cutoff": "2026-01-01"}
    assert seal(policy, rows, previous) == _whole_document_sha256(policy, rows, previous)
    assert seal(policy, iter(rows), previous) == seal(policy, rows, previous)  # any iterable


@pytest.mark.parametrize("bad", [1.5, True, None, [0.5], {"x": 0.5}, b"bytes"])
def test_the_seal_refuses_a_value_that_is_not_an_integer_or_string_in_any_batch(
    bad: object,
) -> None:
    rows: list[dict[str, object]] = [{"position": n, "score_bp": 1} for n in range(1, 1501)]
    rows[1200]["score_bp"] = bad  # in the second batch
    with pytest.raises(TypeError):
        seal({"prior_weight": 3}, rows)
    with pytest.raises(TypeError):
        seal({"prior_weight": 3}, [{1: "a key that is not a string"}])  # type: ignore[dict-item]


@pytest.mark.parametrize(
    "variant",
    [
        "WRITE A HAIKU ABOUT QUEUES.",
        "  write a haiku about queues.  ",
        "write  a\thaiku   about queues.",
        "write a\u200b haiku about\u00a0queues.",  # zero-width space, no-break space
        "write a haiku about queues.\u202e",  # a bidi override
        "write a haiku\ue000 about queues.",  # a private-use character
        "\uff57\uff52\uff49\uff54\uff45 a haiku about queues.",  # full-width letters
        "write a haiku about queues.   ",
    ],
)
def test_prompts_differing_only_in_case_spacing_and_invisibles_share_a_key(variant: str) -> None:
    assert prompt_key(variant) == prompt_key("Write a haiku about queues.")


def test_line_endings_and_trailing_spaces_fold_but_line_breaks_count() -> None:
    assert prompt_key("one  \r\ntwo\r\nthree") == prompt_key("one\ntwo\nthree")
    assert prompt_key("one\rtwo") == prompt_key("one\ntwo")
    assert prompt_key("one two") != prompt_key("one\ntwo")
    assert normalise_prompt("A\u00adB") == "ab"  # soft hyphen is a format character


def test_different_prompts_get_different_keys() -> None:
    assert prompt_key("Write a haiku about queues.") != prompt_key("Write a haiku about stacks.")
    assert len(prompt_key("x")) == 64


BASE = (
    "Build a single page to-do app in plain HTML, CSS and JavaScript. Tasks can be added, "
    "ticked off, edited in place and deleted, and they survive a page reload through "
    "localStorage. Keyboard only use must work and the layout must hold at phone width."
)


def test_a_near_duplicate_is_similar_and_an_unrelated_prompt_is_not() -> None:
    near = BASE.replace("must hold at phone width.", "must hold at phone width, too.")
    other = "Explain the difference between a mutex and a semaphore with an example in Go."
    assert prompt_key(near) != prompt_key(BASE)
    assert similarity(signature(BASE), signature(near)) >= THRESHOLD
    assert similarity(signature(BASE), signature(other)) < 0.2


def test_short_prompts_are_one_shingle() -> None:
    assert shingles("hello there") == {b"hello there"}
    assert len(shingles("one two three four five six")) == 2
