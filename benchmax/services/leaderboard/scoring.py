"""The showcase's arithmetic: a shrunk mean in integer basis points, ranks, and the seal.

Everything here is integer arithmetic on purpose. A snapshot's rows must be reproducible byte
for byte from the reviews it counted, on any machine and engine, so no float ever decides a
score, a rank or a hash.

Scores are whole points 0-100; a basis point is a hundredth of a point (72.5 → 7250).
The score of a Test with counted review scores ``s₁…sₙ`` is the Bayesian average

    (Σ s + m·C) / (n + m)

where ``m`` (the prior weight) is how many "typical" reviews every Test starts with and ``C``
(the prior mean) is the mean of all counted scores in the snapshot. A single lucky 100 is
pulled strongly towards ``C``; many consistent reviews barely are.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import chain, islice
from typing import Any

BP_PER_POINT = 100
FORMULA_ID = "bayesian-mean-v1"
FORMULA_TEXT = "score = (sum of counted scores + m * C) / (number of counted scores + m)"


def round_div(numerator: int, denominator: int) -> int:
    """``numerator / denominator`` rounded half up, for non-negative integers."""
    return (2 * numerator + denominator) // (2 * denominator)


def mean_bp(scores: Iterable[int]) -> int:
    """The mean of whole-point scores in basis points (0 when there are none)."""
    values = list(scores)
    return round_div(sum(values) * BP_PER_POINT, len(values)) if values else 0


def bayesian_score_bp(scores: Sequence[int], prior_weight: int, prior_mean_bp: int) -> int:
    """``(Σ s + m·C) / (n + m)`` in basis points; ``scores`` are whole points."""
    n = len(scores)
    if n + prior_weight == 0:
        return 0
    total = sum(scores) * BP_PER_POINT + prior_weight * prior_mean_bp
    return round_div(total, n + prior_weight)


def median_text(scores: Sequence[int]) -> str:
    """The median score as people read it ("78", "77.5"), or "" with no scores."""
    if not scores:
        return ""
    ordered = sorted(scores)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return str(ordered[middle])
    twice = ordered[middle - 1] + ordered[middle]
    return str(twice // 2) if twice % 2 == 0 else f"{twice / 2:.1f}"


def points_text(score_bp: int) -> str:
    """Basis points as points with two decimals: 7385 → "73.85"."""
    return f"{score_bp // BP_PER_POINT}.{score_bp % BP_PER_POINT:02d}"


@dataclass(frozen=True)
class Scored:
    """One eligible Test's counted reviews, ready to be ordered."""

    test_id: str
    published_at: datetime
    score_bp: int
    scores: tuple[int, ...]
    review_ids: tuple[str, ...]

    def order_key(self) -> tuple[int, int, datetime, str]:
        # Higher score, then more reviews, then earlier publication, then id.
        return (-self.score_bp, -len(self.scores), self.published_at, self.test_id)


def ranked(entries: Iterable[Scored]) -> list[tuple[int, Scored]]:
    """Entries in showcase order with competition ranks: equal scores share a rank (1, 2, 2, 4)."""
    ordered = sorted(entries, key=Scored.order_key)
    result: list[tuple[int, Scored]] = []
    for position, entry in enumerate(ordered, start=1):
        same = result and result[-1][1].score_bp == entry.score_bp
        result.append((result[-1][0] if same else position, entry))
    return result


_SCALARS = (int, str)  # exact types: bool is an int subclass and is refused


def _check_canonical(value: Any) -> None:
    kind = type(value)
    if kind in _SCALARS:
        return
    if kind is list:
        for item in value:
            if type(item) not in _SCALARS:
                _check_canonical(item)
        return
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str:
                raise TypeError("canonical JSON keys are strings")
            if type(item) not in _SCALARS:
                _check_canonical(item)
        return
    raise TypeError(f"canonical JSON holds only integers and strings, not {kind.__name__}")


def canonical_json(value: Any) -> str:
    """Sorted keys, no spaces, UTF-8 as is; refuses floats, booleans and nulls outright."""
    _check_canonical(value)
    return _dumps(value)


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


_ROWS_PER_DUMP = 1000


def _rows_json(rows: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    """The canonical JSON of a list of flat rows, without its brackets, a batch at a time.

    One ``json.dumps`` per batch, not per row (the encoder's set-up per call would cost more
    than the encoding) nor one for all (a 100,000-row snapshot would sit in memory as one
    string); the pieces joined are exactly ``_dumps(list(rows))[1:-1]``.
    """
    iterator = iter(rows)
    separator = ""
    while batch := [dict(row) for row in islice(iterator, _ROWS_PER_DUMP)]:
        # Rows are flat, so one C-level pass over their values checks them (no recursion).
        values = set(map(type, chain.from_iterable(map(dict.values, batch))))
        keys = set(map(type, chain.from_iterable(batch)))
        if not values <= set(_SCALARS) or not keys <= {str}:
            _check_canonical(batch)
        yield separator + _dumps(batch)[1:-1]
        separator = ","


def sealed_chunks(
    policy: Mapping[str, Any],
    rows: Iterable[Mapping[str, Any]],
    previous_sha256: str | None = None,
) -> Iterator[str]:
    """The canonical JSON document a seal covers, in pieces, without its closing brace.

    Its keys sort as ``policy``, ``previous_sha256``, ``rows``; the JSON download goes on
    from here with the keys that sort after ``rows``, so the file and the seal share bytes.
    """
    yield '{"policy":' + canonical_json(dict(policy))
    if previous_sha256 is not None:
        yield ',"previous_sha256":' + canonical_json(previous_sha256)
    yield ',"rows":['
    yield from _rows_json(rows)
    yield "]"


def seal(
    policy: Mapping[str, Any],
    rows: Iterable[Mapping[str, Any]],
    previous_sha256: str | None = None,
) -> str:
    """The SHA-256 every snapshot carries: of the canonical JSON of its policy and rows, and
    of the previous snapshot's seal when it is chained (``""`` for the first in the chain).

    Hashed as it is encoded, so no snapshot's document is ever held whole in memory.
    """
    digest = hashlib.sha256()
    for chunk in sealed_chunks(policy, rows, previous_sha256):
        digest.update(chunk.encode("utf-8"))
    digest.update(b"}")
    return digest.hexdigest()
