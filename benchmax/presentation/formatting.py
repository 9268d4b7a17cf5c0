"""Numbers and declared facts as people read them, the same on every page and in the first
paint."""

from __future__ import annotations


def size_text(size: int) -> str:
    """A byte count as people read it: 512 B, 2.7 KiB, 1.2 MiB."""
    value = float(size)
    for unit in ("B", "KiB", "MiB"):
        if value < 1024:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"


def count_text(count: int, noun: str) -> str:
    """ "1 review", "3 reviews": regular English plurals only, which is all the pages need."""
    return f"{count} {noun}" + ("" if count == 1 else "s")


def attempts_text(attempts: int | None) -> str:
    if attempts is None:
        return "attempts not declared"
    return "best of " + count_text(attempts, "attempt")


def setup_text(model: str, version: str, harness: str, reasoning: str) -> str:
    model_part = f"{model} {version}".strip()
    return f"{model_part} · {harness} · reasoning: {reasoning}"


def score_text(count: int, score: int | None) -> str:
    """The score chip of a reviewed card ("Score 87 · 2 reviews"); empty before a review."""
    if score is None:
        return ""
    return f"Score {score} · " + count_text(count, "review")
