"""Pages say when in words, behind and ahead, and fall back to the date past a month."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from benchmax.services.dates import relative_time, stamp

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("offset", "words"),
    [
        (timedelta(seconds=-20), "just now"),
        (timedelta(seconds=20), "just now"),
        (timedelta(minutes=-1), "1 min ago"),
        (timedelta(minutes=-5), "5 min ago"),
        (timedelta(hours=-1), "1 hour ago"),
        (timedelta(hours=-3), "3 hours ago"),
        (timedelta(days=-2), "2 days ago"),
        (timedelta(minutes=5, seconds=30), "in 5 min"),
        (timedelta(hours=3), "in 3 hours"),
        (timedelta(days=1), "in 1 day"),
        (timedelta(days=12, hours=1), "in 12 days"),
        (timedelta(days=-40), "23 Oct 2026"),
        (timedelta(days=40), "11 Jan 2027"),
    ],
    ids=lambda value: str(value),
)
def test_relative_time(offset: timedelta, words: str) -> None:
    assert relative_time(NOW + offset, NOW) == words


def test_stamp_carries_the_exact_time_and_iso() -> None:
    moment = NOW + timedelta(days=3)
    made = stamp(moment, NOW)
    assert (made.relative, made.exact, made.iso) == (
        "in 3 days",
        "05 Dec 2026, 12:00 UTC",
        "2026-12-05T12:00:00+00:00",
    )
    assert stamp(None) == stamp(None, NOW)
    assert stamp(None).relative == ""


def test_stamp_reads_iso_text_as_the_queues_carry_it() -> None:
    made = stamp("2026-12-02T11:55:00+00:00", NOW)
    assert (made.relative, made.exact) == ("5 min ago", "02 Dec 2026, 11:55 UTC")
    assert stamp("", NOW).iso == ""
