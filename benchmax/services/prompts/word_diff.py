"""A word-level diff of two outputs, as escaped HTML a group page shows as it is.

Outputs are untrusted and can be 500,000 characters each, so the work is bounded twice: each
side is cut to ``MAX_CHARS`` before it is split, and the diff itself runs on a budget (Google's
diff-match-patch, which falls back to a coarser but still correct answer when its deadline
passes; difflib has no deadline and a quadratic worst case). The budget is counted in steps of
the library's bisection, not in seconds: a comparison is a shared address, and the same two
outputs must show the same diff however busy the server was when each reader opened it. Each
word, run of spaces or punctuation mark becomes one code point, so the character diff is a
word diff.

Added and removed words are marked with ``<ins>`` and ``<del>`` (underlined and struck
through, never by colour alone) with visually hidden words that say which, for screen readers.
Every piece of the outputs goes through ``html.escape``; the only markup is this module's own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape

from diff_match_patch import diff_match_patch

MAX_CHARS = 100_000
# Cells of the edit graph the bisections may walk, over both passes: about 0.1 s of work on a
# quiet server; two 50 KB runs of one prompt need a small part of it.
BUDGET_CELLS = 500_000
_LINE = re.compile(r"[^\n]*\n|[^\n]+")
_TOKEN = re.compile(r"\w+|\s+|[^\w\s]", re.UNICODE)
_WORD = re.compile(r"\w", re.UNICODE)
_EQUAL, _INSERT, _DELETE = 0, 1, -1
# Code points for tokens start past the C0/C1 controls and skip the surrogates, which a
# Python string may hold but which diff-match-patch's splitting must never see.
_FIRST_CODE = 0x100
_SURROGATES = range(0xD800, 0xE000)


@dataclass(frozen=True)
class WordDiff:
    html: str
    added_words: int
    removed_words: int
    # The first MAX_CHARS of an output were compared, not all of it.
    cut: bool
    # The budget ran out, so the differences are right but may be marked in larger pieces.
    coarse: bool

    @property
    def identical(self) -> bool:
        return not (self.added_words or self.removed_words)


def _code(index: int) -> str:
    point = _FIRST_CODE + index
    return chr(point + len(_SURROGATES) if point >= _SURROGATES.start else point)


def _encode(pieces: list[str], codes: dict[str, str], tokens: list[str]) -> str:
    """``pieces`` with each replaced by its code point, new pieces added to both maps."""
    out = []
    for token in pieces:
        code = codes.get(token)
        if code is None:
            code = codes[token] = _code(len(tokens))
            tokens.append(token)
        out.append(code)
    return "".join(out)


def _words(pieces: list[str]) -> int:
    return sum(1 for piece in pieces if _WORD.match(piece))


_HIDDEN = '<span class="visually-hidden">{}</span>'
_OPEN = {
    _INSERT: "<ins>" + _HIDDEN.format("[added: "),
    _DELETE: "<del>" + _HIDDEN.format("[removed: "),
}
_CLOSE = {_INSERT: _HIDDEN.format("]") + "</ins>", _DELETE: _HIDDEN.format("]") + "</del>"}


class _Budget:
    """Cells of the edit graph left to walk, shared by every bisection of one diff."""

    def __init__(self, cells: int) -> None:
        self.left = cells

    @property
    def spent(self) -> bool:
        return self.left < 0


class _Steps:
    """One bisection's deadline, counted in work instead of time.

    diff-match-patch asks ``time.time() > deadline`` once before each step ``d`` of its
    bisection, and Python answers that with ``deadline < now``. Step ``d`` walks ``2d + 1``
    diagonals from each end, so that is what each question charges the shared budget; once it
    is spent the answer is yes, and the library returns its coarse answer exactly as it does
    when a clock runs out.
    """

    def __init__(self, budget: _Budget) -> None:
        self.budget = budget
        self.step = 0

    def __lt__(self, _now: float) -> bool:
        self.budget.left -= 2 * (2 * self.step + 1)
        self.step += 1
        return self.budget.spent


class _CountedDiff(diff_match_patch):  # type: ignore[misc]  # the library has no types
    """diff-match-patch whose every bisection, nested ones too, draws on one ``_Budget``."""

    def diff_bisect(self, text1: str, text2: str, deadline: _Steps) -> list[tuple[int, str]]:
        diffs: list[tuple[int, str]] = super().diff_bisect(text1, text2, _Steps(deadline.budget))
        return diffs


def _diff(differ: _CountedDiff, a: str, b: str, budget: _Budget) -> list[tuple[int, str]]:
    diffs: list[tuple[int, str]] = differ.diff_main(a, b, checklines=False, deadline=_Steps(budget))
    return diffs


def word_diff(
    before: str, after: str, *, max_chars: int = MAX_CHARS, budget_cells: int = BUDGET_CELLS
) -> WordDiff:
    """What changed from ``before`` to ``after``, word by word.

    Lines first, then words within each run of changed lines: two outputs that share most of
    their lines cost little however long they are, and the budget covers both passes.
    """
    cut = len(before) > max_chars or len(after) > max_chars
    before, after = before[:max_chars], after[:max_chars]
    differ = _CountedDiff()
    budget = _Budget(budget_cells)
    line_codes: dict[str, str] = {}
    lines: list[str] = []
    a = _encode(_LINE.findall(before), line_codes, lines)
    b = _encode(_LINE.findall(after), line_codes, lines)
    line_index = {code: line for line, code in line_codes.items()}
    html: list[str] = []
    counts = {_INSERT: 0, _DELETE: 0}
    removed_lines: list[str] = []
    added_lines: list[str] = []

    def flush() -> None:
        if removed_lines or added_lines:
            _words_of("".join(removed_lines), "".join(added_lines), differ, budget, html, counts)
        removed_lines.clear()
        added_lines.clear()

    for op, coded in _diff(differ, a, b, budget):
        pieces = [line_index[code] for code in coded]
        if op == _EQUAL:
            flush()
            html.append(escape("".join(pieces), quote=False))
        else:
            (added_lines if op == _INSERT else removed_lines).extend(pieces)
    flush()
    return WordDiff("".join(html), counts[_INSERT], counts[_DELETE], cut, budget.spent)


def _words_of(
    before: str,
    after: str,
    differ: _CountedDiff,
    budget: _Budget,
    html: list[str],
    counts: dict[int, int],
) -> None:
    """One run of changed lines, diffed word by word into ``html``."""
    codes: dict[str, str] = {}
    tokens: list[str] = []
    a = _encode(_TOKEN.findall(before), codes, tokens)
    b = _encode(_TOKEN.findall(after), codes, tokens)
    index = {code: token for token, code in codes.items()}
    diffs = _diff(differ, a, b, budget)
    differ.diff_cleanupSemantic(diffs)
    for op, coded in diffs:
        pieces = [index[code] for code in coded]
        text = escape("".join(pieces), quote=False)
        if op == _EQUAL:
            html.append(text)
        else:
            html.append(_OPEN[op] + text + _CLOSE[op])
            counts[op] += _words(pieces)
