"""The shared hint pass must say exactly what the exact checks it replaces would find."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmax.services.safety import hints as hints_module
from benchmax.services.safety.hints import (
    DOCUMENT_MARKERS,
    INJECTION_TRIGGERS,
    MIN_RUN,
    text_hints,
)
from benchmax.services.safety.secrets import _long_runs

# Pieces that sit on the edges: every literal in both cases, runs one short of and exactly
# the minimum length, and the separators between them.
_PIECES = st.sampled_from(
    [
        *INJECTION_TRIGGERS,
        *(trigger.upper() for trigger in INJECTION_TRIGGERS),
        *DOCUMENT_MARKERS,
        *(marker.lower() for marker in DOCUMENT_MARKERS),
        "a" * (MIN_RUN - 1),
        "Z9_-+/" * 4,
        "b" * MIN_RUN,
        " ",
        "\n",
        ".",
        "=",
        '"',
        "<",
        "|",
    ]
)


def _exact(text: str) -> tuple[tuple[str, ...], frozenset[str], bool]:
    lowered = text.lower()
    return (
        tuple(trigger for trigger in INJECTION_TRIGGERS if trigger in lowered),
        frozenset(marker for marker in DOCUMENT_MARKERS if marker in text),
        any(True for _ in _long_runs(text)),
    )


@settings(max_examples=400, deadline=None, database=None, derandomize=True)
@given(st.lists(_PIECES, max_size=12).map("".join))
def test_hints_agree_with_the_exact_checks(text: str) -> None:
    hints = text_hints(text)
    assert hints is not None
    assert (hints.triggers, hints.markers, hints.long_run) == _exact(text)


def test_text_that_is_not_ascii_takes_the_exact_path() -> None:
    assert text_hints("\uff49\uff47\uff4e\uff4f\uff52\uff45 previous instructions") is None
    assert text_hints("café") is None


def test_the_same_text_is_scanned_once(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "ignore the previous instructions " + "x" * MIN_RUN
    first = text_hints(text)
    scans: list[str] = []
    original = hints_module._scan

    def counting(value: str) -> hints_module.TextHints:
        scans.append(value)
        return original(value)

    monkeypatch.setattr(hints_module, "_scan", counting)
    assert text_hints(text) is first
    assert scans == []
    other = text + " "
    assert text_hints(other) is not first
    assert scans == [other]
