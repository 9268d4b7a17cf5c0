"""Do the feed's other orders and its results count cost what the newest first page costs?

Seeds 100,000 public Tests (a third of them reviewed, with review counts and scores) into a
fresh, migrated SQLite database, walks each order's cursors to page 200, and times, in turns
so load from other processes falls on all alike: page 1 and page 200 of newest, most
reviewed and highest reviewed score, and the bounded results count (unfiltered and with a
harness filter). Prints p50/p95 of each as a ratio to newest page 1 measured in the same run
(targets: every p95 ratio <= 3 and < 50 ms). Exits non-zero when a target is missed.
"""

from __future__ import annotations

import importlib.util
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a plain script from anywhere

from sqlalchemy import Engine  # noqa: E402
from sqlmodel import Session  # noqa: E402

from benchmax.db import make_engine  # noqa: E402
from benchmax.migrations import upgrade  # noqa: E402
from benchmax.services.feed import FeedFilters, count_feed, list_feed  # noqa: E402

_SPEC = importlib.util.spec_from_file_location("bench_feed", Path(__file__).with_name("feed.py"))
assert _SPEC is not None
assert _SPEC.loader is not None
bench_feed = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench_feed)  # the same seed as bench/feed.py

PAGE_SIZE = 20
FAR_PAGE = 200
ROUNDS = 150
SORTS = ("newest", "most_reviewed", "top_score")


def add_reviews(engine: Engine) -> None:
    """Every third Test reviewed: 1 to 5 current reviews and a score from 0 to 100."""
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "UPDATE test SET review_count = 1 + (rowid / 3) % 5, "
            "review_score = (rowid * 37) % 101 WHERE rowid % 3 = 0"
        )


def far_cursor(engine: Engine, sort: str) -> str:
    cursor: str | None = None
    with Session(engine) as session:
        for _ in range(FAR_PAGE - 1):
            cursor = list_feed(session, FeedFilters(sort=sort), cursor, PAGE_SIZE).next_cursor
            assert cursor is not None
    assert cursor is not None  # FAR_PAGE > 1, so the loop ran
    return cursor


def _page(filters: FeedFilters, cursor: str | None) -> Callable[[Session], Any]:
    return lambda session: list_feed(session, filters, cursor, PAGE_SIZE)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        upgrade(url)
        engine = make_engine(url)
        started = time.perf_counter()
        bench_feed.seed(engine)
        add_reviews(engine)
        with engine.begin() as conn:
            conn.exec_driver_sql("ANALYZE")
        print(f"seeded {bench_feed.TESTS:,} Tests in {time.perf_counter() - started:.1f} s")
        cursors = {sort: far_cursor(engine, sort) for sort in SORTS}
        cases: dict[str, Callable[[Session], Any]] = {}
        for sort in SORTS:
            filters = FeedFilters(sort=sort)
            cases[f"{sort} page 1"] = _page(filters, None)
            cases[f"{sort} page {FAR_PAGE}"] = _page(filters, cursors[sort])
        cases["count (1,000+)"] = lambda s: count_feed(s, FeedFilters())
        cases["count, harness filter"] = lambda s: count_feed(s, FeedFilters(harness="aider"))
        samples: dict[str, list[float]] = {name: [] for name in cases}
        with Session(engine) as session:
            for case in cases.values():
                case(session)  # warm
            for _ in range(ROUNDS):
                for name, case in cases.items():
                    begin = time.perf_counter()
                    case(session)
                    samples[name].append((time.perf_counter() - begin) * 1000)
        engine.dispose()
    base = statistics.quantiles(samples["newest page 1"], n=20)[-1]
    ok = True
    print(f"{'case':28} {'p50 ms':>8} {'p95 ms':>8} {'p95 ratio':>10}")
    for name, values in samples.items():
        p50, p95 = statistics.median(values), statistics.quantiles(values, n=20)[-1]
        ratio = p95 / base
        ok = ok and ratio <= 3 and p95 < 50
        print(f"{name:28} {p50:8.2f} {p95:8.2f} {ratio:10.2f}")
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
