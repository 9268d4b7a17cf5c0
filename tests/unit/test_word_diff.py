"""The word diff a group page shows: marks, escaping, bounds and hostile input."""

from __future__ import annotations

import html
import importlib
import itertools
import random
import re
import time
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmax.services.prompts.word_diff import MAX_CHARS, word_diff

# The module that reads the clock (the package's own name is taken by its class).
DMP = importlib.import_module("diff_match_patch.diff_match_patch")

TAG = re.compile(r"<[^>]*>")
# The only markup the diff may hold: its own marks and their visually hidden words.
OWN_TAGS = {"ins", "del", "span"}


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))


def _tags(markup: str) -> list[tuple[str, list[tuple[str, str | None]]]]:
    parser = _Tags()
    parser.feed(markup)
    return parser.tags


def _side(markup: str, drop: str) -> str:
    """The text one side reads: the other side's marked pieces and every hidden word dropped."""
    markup = re.sub(r'<span class="visually-hidden">[^<]*</span>', "", markup)
    markup = re.sub(rf"<{drop}>.*?</{drop}>", "", markup, flags=re.S)
    return html.unescape(TAG.sub("", markup))


def test_added_and_removed_words_are_marked_without_colour_alone() -> None:
    diff = word_diff("the quick brown fox", "the slow brown fox jumps")
    assert "<del>" in diff.html
    assert "<ins>" in diff.html
    # Each change says what it is in words a screen reader reads.
    assert '<span class="visually-hidden">[removed: </span>quick' in diff.html
    assert '<span class="visually-hidden">[added: </span>slow' in diff.html
    assert (diff.added_words, diff.removed_words) == (2, 1)
    assert not diff.identical
    assert not diff.cut
    assert not diff.coarse


def test_each_side_is_recovered_exactly_from_the_marks() -> None:
    before = "Line one stays.\nLine two: alpha beta gamma.\n\n  indented   code()\nend"
    after = "Line one stays.\nLine two: alpha delta gamma, epsilon.\n  indented code()\nend!"
    diff = word_diff(before, after)
    assert _side(diff.html, "ins") == before
    assert _side(diff.html, "del") == after


def test_the_same_text_has_no_marks() -> None:
    diff = word_diff("same words\nhere", "same words\nhere")
    assert diff.identical
    assert "<ins>" not in diff.html
    assert "<del>" not in diff.html
    assert diff.html == "same words\nhere"


@pytest.mark.parametrize(
    "hostile",
    [
        "<script>alert(1)</script>",
        '<img src=x onerror="alert(1)">',
        '</ins></del><span class="visually-hidden">x</span>',
        "&lt;already escaped&gt; &amp;",
        "<!-- comment --><![CDATA[x]]>",
        "\u202e\u200b\x00\x1b[31m",
    ],
)
def test_outputs_stay_text_whatever_markup_they_hold(hostile: str) -> None:
    for before, after in ((hostile, "plain"), ("plain", hostile), (hostile, hostile + " more")):
        diff = word_diff(before, after)
        tags = _tags(diff.html)
        assert {tag for tag, _ in tags} <= OWN_TAGS
        # The only attribute is the hidden words' class: nothing of the outputs became one.
        assert all(attrs in ([], [("class", "visually-hidden")]) for _, attrs in tags)
        assert _side(diff.html, "ins") == before
        assert _side(diff.html, "del") == after


def test_unicode_and_astral_words_round_trip() -> None:
    before = "naïve café 東京 🙂 emoji\r\nwindows line"
    after = "naive café 大阪 🙃 emoji\r\nwindows line"
    diff = word_diff(before, after)
    assert _side(diff.html, "ins") == before
    assert _side(diff.html, "del") == after


def _prose(rng: random.Random, size: int) -> str:
    words = [
        "".join(rng.choice("abcdefghijklm") for _ in range(rng.randint(2, 9))) for _ in range(2000)
    ]
    out: list[str] = []
    length = 0
    while length < size:
        piece = rng.choice(words) + rng.choice([" ", " ", ", ", ".\n"])
        out.append(piece)
        length += len(piece)
    return "".join(out)


def _two_runs(seed: int, size: int, every: int) -> tuple[str, str]:
    """Prose of ``size`` characters, and the same with every ``every``-th word changed."""
    before = _prose(random.Random(seed), size)
    words = before.split(" ")
    for i in range(0, len(words), every):
        words[i] = "CHANGED"
    return before, " ".join(words)


def test_two_50_kb_outputs_are_diffed_word_by_word() -> None:
    before, after = _two_runs(7, 50_000, 40)
    diff = word_diff(before, after)
    assert not diff.coarse
    # Word by word, not one whole replacement.
    assert 0 < diff.added_words < len(before.split(" ")) // 10
    assert _side(diff.html, "ins") == before
    assert _side(diff.html, "del") == after


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("a " * 200_000, "b " * 200_000),  # every word different, over the cap
        ("a\n" * 200_000, "b\n" * 200_000),  # every line different
        ("x" * 500_000, "y" * 500_000),  # one enormous word each
        ("ab " * 100_000, "ba " * 100_000),
    ],
)
def test_hostile_pairs_are_bounded_in_size_and_time(before: str, after: str) -> None:
    start = time.monotonic()
    diff = word_diff(before, after)
    assert time.monotonic() - start < 3
    assert diff.cut  # only the first MAX_CHARS of each side
    assert _side(diff.html, "ins") == before[:MAX_CHARS]
    assert _side(diff.html, "del") == after[:MAX_CHARS]


def test_a_spent_budget_still_gives_a_correct_coarse_answer() -> None:
    rng = random.Random(3)
    before, after = _prose(rng, 20_000), _prose(rng, 20_000)
    diff = word_diff(before, after, budget_cells=0)
    assert diff.coarse
    assert _side(diff.html, "ins") == before
    assert _side(diff.html, "del") == after


def test_the_same_pair_gives_the_same_diff_however_slow_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A comparison is a shared address: a reader on a busy server must see what a reader on a
    quiet one sees. Here every reading of the clock is a second later than the one before."""
    before, after = _two_runs(11, 30_000, 25)
    quiet = word_diff(before, after)
    ticks = itertools.count(time.time(), 1.0)
    monkeypatch.setattr(DMP.time, "time", lambda: next(ticks))
    busy = word_diff(before, after)
    assert busy == quiet
    assert not busy.coarse


def test_a_pair_too_different_for_the_budget_is_marked_coarse_every_time() -> None:
    rng = random.Random(5)
    before, after = _prose(rng, 50_000), _prose(rng, 50_000)
    first = word_diff(before, after)
    assert first.coarse
    assert word_diff(before, after) == first


def test_empty_sides() -> None:
    assert word_diff("", "").html == ""
    added = word_diff("", "new words")
    assert (added.added_words, added.removed_words) == (2, 0)
    removed = word_diff("old words", "")
    assert (removed.added_words, removed.removed_words) == (0, 2)


# Words, spaces, line breaks, markup characters and a few scripts, so pairs share pieces.
_PIECES = st.sampled_from(
    ["a", "b", "word", " ", "  ", "\n", "\r\n", "\t", "<", ">", "&", '"', "é", "東", "🙂", "."]
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(_PIECES, max_size=60).map("".join),
    st.lists(_PIECES, max_size=60).map("".join),
)
def test_any_pair_reads_back_as_both_sides(before: str, after: str) -> None:
    diff = word_diff(before, after)
    assert _side(diff.html, "ins") == before
    assert _side(diff.html, "del") == after
    assert {tag for tag, _ in _tags(diff.html)} <= OWN_TAGS


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200), st.text(max_size=200))
def test_any_text_at_all_reads_back_as_both_sides(before: str, after: str) -> None:
    diff = word_diff(before, after)
    assert _side(diff.html, "ins") == before
    assert _side(diff.html, "del") == after
