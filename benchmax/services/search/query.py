"""Free-text search: our query language, turned into each engine's own full-text query.

A visitor types words, ``"quoted phrases"`` and ``prefix*`` words; every term must match
(AND). We never hand their text to the engine's query parser: it is split here into runs of
letters and digits — the same rule the index uses (migration 0009) — and each run is quoted
again in the engine's syntax, so FTS5 operators (AND, OR, NOT, NEAR, ``^``, ``-``, column
filters) and tsquery operators are just words or separators, and no input can make the engine
refuse the query. A query with no letters or digits has no terms and matches nothing.

Highlighting works on the same tokens in Python, on text that is already in hand, and yields
plain (text, hit) segments: the page renders them as text nodes and the API escapes them before
adding ``<mark>``, so a Test's own text can never become markup.
"""

from __future__ import annotations

import base64
import binascii
import html
import math
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from benchmax.models._base import is_public_id
from benchmax.services.errors import Invalid

MAX_TERMS = 8
MAX_TOKEN_LENGTH = 64
MAX_PHRASE_TOKENS = 8
# Relevance ranks the newest matches only, so a word in half the corpus still costs a
# bounded amount of ranking work per page; newest-first search reaches every match.
# 100 is five pages: at a million Tests a window of 200 made a phrase search on SQLite cost
# 3.8 times the plain first page (bench/search.py), 100 about two.
RANK_WINDOW = 100
EXCERPT_SCAN_CHARS = 4000
_EXCERPT_BEFORE = 60
_EXCERPT_LENGTH = 200
_MAX_RANK_CURSOR = 120

_TOKEN = re.compile(r"[^\W_]+")
_PIECE = re.compile(r'"([^"]*)"?|(\S+)')


class InvalidSearchCursorError(Invalid):
    """A relevance cursor this service did not issue; it reads as the feed's other cursors
    do (``feed_order.bad_cursor``), as the feed hands out both."""

    def __init__(self) -> None:
        super().__init__("invalid_cursor", "The cursor is malformed or expired.", "cursor")


@dataclass(frozen=True)
class Term:
    """One required match: a word, a phrase (several tokens in a row) or a prefix."""

    tokens: tuple[str, ...]
    prefix: bool = False


class Segment(NamedTuple):
    """A piece of a highlighted text (a tuple: a card page makes a few dozen of them)."""

    text: str
    hit: bool


def fold(token: str) -> str:
    """Lower case without diacritics: how both indexes compare words."""
    decomposed = unicodedata.normalize("NFKD", token.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _tokens(text: str) -> list[str]:
    return [match.group()[:MAX_TOKEN_LENGTH].lower() for match in _TOKEN.finditer(text)]


def parse(q: str) -> list[Term]:
    """Terms of a query; an unclosed quote runs to the end, punctuation only separates."""
    terms: list[Term] = []
    for match in _PIECE.finditer(q):
        phrase, word = match.group(1), match.group(2)
        text = phrase if phrase is not None else word
        tokens = _tokens(text)[:MAX_PHRASE_TOKENS]
        if not tokens:
            continue
        prefix = phrase is None and word.endswith("*") and len(tokens) == 1
        term = Term(tuple(tokens), prefix)
        if term not in terms:
            terms.append(term)
    return terms[:MAX_TERMS]


def fts5_query(terms: list[Term]) -> str:
    """An FTS5 MATCH expression: each term a quoted string, so nothing in it is an operator."""
    return " ".join('"' + " ".join(t.tokens) + '"' + ("*" if t.prefix else "") for t in terms)


def tsquery(terms: list[Term]) -> str:
    """Text for ``to_tsquery``: quoted lexemes, ``<->`` in phrases, ``:*`` for prefixes."""

    def lexeme(token: str) -> str:
        return "'" + token.replace("\\", "\\\\").replace("'", "''") + "'"

    parts = []
    for term in terms:
        words = " <-> ".join(lexeme(token) for token in term.tokens)
        parts.append(f"({words}{':*' if term.prefix else ''})")
    return " & ".join(parts)


class _Matcher:
    """Finds the words of a text that match the terms, as whole tokens.

    Built once per query (cached): ASCII text, nearly all of it, is searched by one compiled
    pattern in C; other text is split into tokens and each is folded first, as the indexes
    fold it, so "resume" still marks "résumé".
    """

    def __init__(self, terms: tuple[Term, ...]) -> None:
        words = {fold(t) for term in terms if not term.prefix for t in term.tokens}
        prefixes = tuple(fold(term.tokens[0]) for term in terms if term.prefix)
        self.words, self.prefixes = frozenset(words), prefixes
        # Only ASCII terms can match an ASCII token (a folded one is its lower case).
        alternatives = [re.escape(w) + r"(?![^\W_])" for w in sorted(words) if w.isascii()]
        alternatives += [re.escape(p) + r"[^\W_]*" for p in prefixes if p.isascii()]
        self.pattern = re.compile(
            r"(?<![^\W_])(?:" + "|".join(alternatives or ["(?!)"]) + ")", re.I
        )

    def _hit(self, token: str) -> bool:
        folded = fold(token)
        return folded in self.words or folded.startswith(self.prefixes)

    def hits(self, text: str) -> Iterator[re.Match[str]]:
        if text.isascii():
            return self.pattern.finditer(text)
        return (m for m in _TOKEN.finditer(text) if self._hit(m.group()))


@lru_cache(maxsize=64)
def _matcher(terms: tuple[Term, ...]) -> _Matcher:
    return _Matcher(terms)


def highlight(text: str, terms: list[Term]) -> list[Segment]:
    """``text`` cut into segments, the words that match a term marked."""
    segments: list[Segment] = []
    position = 0
    for match in _matcher(tuple(terms)).hits(text):
        if match.start() > position:
            segments.append(Segment(text[position : match.start()], False))
        segments.append(Segment(match.group(), True))
        position = match.end()
    if position < len(text):
        segments.append(Segment(text[position:], False))
    return segments


def excerpt(texts: list[str], terms: list[Term]) -> list[Segment]:
    """A short window around the first match in the first text that has one; none if none."""
    matcher = _matcher(tuple(terms))
    for text in texts:
        head = text[:EXCERPT_SCAN_CHARS]
        first = next(iter(matcher.hits(head)), None)
        if first is None:
            continue
        start = max(0, first.start() - _EXCERPT_BEFORE)
        if start:
            space = head.find(" ", start, first.start())
            start = space + 1 if space != -1 else start
        window = " ".join(head[start : start + _EXCERPT_LENGTH].split())
        lead = "…" if start else ""
        tail = "…" if start + _EXCERPT_LENGTH < len(text) else ""
        return highlight(lead + window + tail, terms)
    return []


def marked_html(segments: list[Segment]) -> str:
    """HTML for API clients: every piece escaped first, then matches wrapped in ``<mark>``."""
    return "".join(
        f"<mark>{html.escape(s.text)}</mark>" if s.hit else html.escape(s.text) for s in segments
    )


def encode_rank_cursor(score: float, test_id: str) -> str:
    raw = f"r{score!r}|{test_id}"
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_rank_cursor(cursor: str) -> tuple[float, str]:
    """The ``(score, id)`` a relevance cursor points after."""
    if len(cursor) > _MAX_RANK_CURSOR or not re.fullmatch(r"[A-Za-z0-9_-]+", cursor):
        raise InvalidSearchCursorError()
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
        score_text, test_id = raw.removeprefix("r").split("|")
        score = float(score_text)
    except (binascii.Error, UnicodeDecodeError, ValueError) as error:
        raise InvalidSearchCursorError() from error
    if not raw.startswith("r") or not math.isfinite(score) or not is_public_id(test_id):
        raise InvalidSearchCursorError()
    return score, test_id
