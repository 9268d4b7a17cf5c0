"""A word-level diff of two outputs, as escaped HTML a group page shows as it is.

Outputs are untrusted and can be 500,000 characters each, so the work is bounded twice: each
side is cut to ``MAX_CHARS`` before it is split, and the diff itself runs under a deadline
(Google's diff-match-patch, which falls back to a coarser but still correct answer when the
deadline passes; difflib has no deadline and a quadratic worst case). Each word, run of
spaces or punctuation mark becomes one code point, so the character diff is a word diff.

Added and removed words are marked with ``<ins>`` and ``<del>`` (underlined and struck
through, never by colour alone) with visually hidden words that say which, for screen readers.
Every piece of the outputs goes through ``html.escape``; the only markup is this module's own.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from html import escape

from diff_match_patch import diff_match_patch

MAX_CHARS = 100_000
DEADLINE_SECONDS = 0.1
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
    # The deadline passed, so the differences are right but may be marked in larger pieces.
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


def _diff(differ: diff_match_patch, a: str, b: str, until: float) -> list[tuple[int, str]]:
    diffs: list[tuple[int, str]] = differ.diff_main(a, b, checklines=False, deadline=until)
    return diffs


def word_diff(
    before: str, after: str, *, max_chars: int = MAX_CHARS, deadline: float = DEADLINE_SECONDS
) -> WordDiff:
    """What changed from ``before`` to ``after``, word by word.

    Lines first, then words within each run of changed lines: two outputs that share most of
    their lines cost little however long they are, and the deadline covers both passes.
    """
    cut = len(before) > max_chars or len(after) > max_chars
    before, after = before[:max_chars], after[:max_chars]
    differ = diff_match_patch()
    until = time.time() + deadline
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
            _words_of("".join(removed_lines), "".join(added_lines), differ, until, html, counts)
        removed_lines.clear()
        added_lines.clear()

    for op, coded in _diff(differ, a, b, until):
        pieces = [line_index[code] for code in coded]
        if op == _EQUAL:
            flush()
            html.append(escape("".join(pieces), quote=False))
        else:
            (added_lines if op == _INSERT else removed_lines).extend(pieces)
    flush()
    coarse = time.time() >= until
    return WordDiff("".join(html), counts[_INSERT], counts[_DELETE], cut, coarse)


def _words_of(
    before: str,
    after: str,
    differ: diff_match_patch,
    until: float,
    html: list[str],
    counts: dict[int, int],
) -> None:
    """One run of changed lines, diffed word by word into ``html``."""
    codes: dict[str, str] = {}
    tokens: list[str] = []
    a = _encode(_TOKEN.findall(before), codes, tokens)
    b = _encode(_TOKEN.findall(after), codes, tokens)
    index = {code: token for token, code in codes.items()}
    diffs = _diff(differ, a, b, until)
    differ.diff_cleanupSemantic(diffs)
    for op, coded in diffs:
        pieces = [index[code] for code in coded]
        text = escape("".join(pieces), quote=False)
        if op == _EQUAL:
            html.append(text)
        else:
            html.append(_OPEN[op] + text + _CLOSE[op])
            counts[op] += _words(pieces)
