"""Does the feed cost the same on page 1 and page 1,000?

Seeds 100,000 public Tests into a fresh, migrated SQLite database in a temporary directory,
walks the cursors to page 1,000, then times page 1 and page 1,000 repeatedly — through the
feed service and through ``GET /api/v1/tests`` (in-process ASGI, no network) — and prints
p50/p95 for both pages and their ratio (targets: p95 ratio <= 1.5, first-page p95 < 50 ms).
The two pages are timed alternately so load from other processes falls on both alike.
It also prints SQLite's query plan, which must be a range scan of ``ix_test_feed``.
Exits non-zero when a target is missed.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a plain script from anywhere

import httpx  # noqa: E402
from sqlalchemy import Engine, event, insert  # noqa: E402
from sqlmodel import Session  # noqa: E402

from benchmax.db import make_engine  # noqa: E402
from benchmax.migrations import upgrade  # noqa: E402
from benchmax.models import ReviewState, Test, TestState, User  # noqa: E402
from benchmax.models._base import new_id, utcnow  # noqa: E402
from benchmax.services.feed import FeedFilters, list_feed  # noqa: E402

TESTS = 100_000
USERS = 500
PAGE_SIZE = 20
FAR_PAGE = 1_000
ROUNDS = 300
SETUPS = [
    ("Claude Sonnet 4.5", "Claude Code", "high"),
    ("GPT-5", "Codex CLI", "medium"),
    ("Gemini 2.5 Pro", "Gemini CLI", "low"),
    ("Kimi K2", "Cline", "none"),
    ("GLM-4.6", "Aider", "high"),
]


def _test_row(n: int, contributor_id: str, published: Any) -> dict[str, Any]:
    model, harness, reasoning = SETUPS[n % len(SETUPS)]
    return {
        "id": new_id(),
        "contributor_id": contributor_id,
        "title": f"Bench Test {n}" if n % 3 else "",
        "prompt": f"Prompt number {n}\nwith a second line that is a little longer.",
        "model_label": model,
        "harness_label": harness,
        "reasoning_label": reasoning,
        "output_text": f"Output {n}",
        "state": TestState.PUBLIC.value,
        "review_state": ReviewState.AWAITING.value,
        "evidence_kinds": "text",
        "created_at": published,
        "updated_at": published,
        "submitted_at": published,
        "published_at": published,
    }


def seed(engine: Engine) -> None:
    """Bulk insert through Core executemany: one transaction, batches of 10,000 rows."""
    users = [
        {
            "id": new_id(),
            "handle": f"bench{n}",
            "display_name": f"Bench {n}",
            "auth_subject": f"b{n}",
        }
        for n in range(USERS)
    ]
    now = utcnow()
    with engine.begin() as conn:
        conn.execute(insert(User), users)
        for start in range(0, TESTS, 10_000):
            # Pairs of Tests share a timestamp so ties between pages are exercised.
            conn.execute(
                insert(Test),
                [
                    _test_row(n, users[n % USERS]["id"], now - timedelta(seconds=n // 2))
                    for n in range(start, min(start + 10_000, TESTS))
                ],
            )


def cursor_for_page(engine: Engine, page: int) -> str:
    cursor: str | None = None
    with Session(engine) as session:
        for _ in range(page - 1):
            cursor = list_feed(session, FeedFilters(), cursor, PAGE_SIZE).next_cursor
            assert cursor is not None, "ran out of pages"
    assert cursor is not None
    return cursor


def timings(first: Callable[[], int], far: Callable[[], int]) -> tuple[list[float], list[float]]:
    """Milliseconds per call for both pages, alternating so background load hits both alike."""
    samples: tuple[list[float], list[float]] = ([], [])
    for call in (first, far):
        call()  # warm caches, as a running server would be
    for _ in range(ROUNDS):
        for call, bucket in zip((first, far), samples, strict=True):
            start = time.perf_counter()
            count = call()
            bucket.append((time.perf_counter() - start) * 1000)
            assert count == PAGE_SIZE
    return samples


def p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20)[-1]


def service_call(engine: Engine, cursor: str | None) -> Callable[[], int]:
    def call() -> int:
        with Session(engine) as session:
            return len(list_feed(session, FeedFilters(), cursor, PAGE_SIZE).items)

    return call


def api_call(
    loop: asyncio.AbstractEventLoop, client: httpx.AsyncClient, cursor: str | None
) -> Callable[[], int]:
    params = {"limit": str(PAGE_SIZE), **({"cursor": cursor} if cursor else {})}

    def call() -> int:
        response = loop.run_until_complete(client.get("/api/v1/tests", params=params))
        assert response.status_code == 200, response.text
        return len(response.json()["items"])

    return call


def query_plan(engine: Engine, cursor: str) -> str:
    captured: list[tuple[str, Any]] = []

    def capture(_conn: Any, _cur: Any, statement: str, params: Any, *_: Any) -> None:
        if "ORDER BY test.published_at DESC" in statement:
            captured.append((statement, params))

    event.listen(engine, "before_cursor_execute", capture)
    service_call(engine, cursor)()
    event.remove(engine, "before_cursor_execute", capture)
    statement, params = captured[-1]
    with engine.connect() as conn:
        rows = conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", params).all()
    return "\n".join(f"    {row[-1]}" for row in rows)


def report(name: str, first: list[float], far: list[float]) -> bool:
    first_p50, first_p95 = statistics.median(first), p95(first)
    far_p50, far_p95 = statistics.median(far), p95(far)
    ratio = far_p95 / first_p95
    ok = ratio <= 1.5 and first_p95 < 50
    print(f"{name}:")
    print(f"  page 1      p50 {first_p50:7.2f} ms   p95 {first_p95:7.2f} ms")
    print(f"  page {FAR_PAGE:,}  p50 {far_p50:7.2f} ms   p95 {far_p95:7.2f} ms")
    print(
        f"  ratio page {FAR_PAGE:,} / page 1: p50 {far_p50 / first_p50:.2f}, p95 {ratio:.2f}"
        f"   -> {'OK' if ok else 'MISSED'} (targets: p95 ratio <= 1.5, page-1 p95 < 50 ms)"
    )
    return ok


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="benchmax-feed-") as tmp:
        database_url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        os.environ.update(
            BENCHMAX_ENV="development", BENCHMAX_DATA_DIR=tmp, BENCHMAX_DATABASE_URL=database_url
        )
        upgrade(database_url)
        engine = make_engine(database_url)
        started = time.perf_counter()
        seed(engine)
        print(f"seeded {TESTS:,} public Tests in {time.perf_counter() - started:.1f} s")
        started = time.perf_counter()
        far_cursor = cursor_for_page(engine, FAR_PAGE)
        print(f"walked {FAR_PAGE - 1:,} pages in {time.perf_counter() - started:.1f} s")
        print("query plan for page 1,000:\n" + query_plan(engine, far_cursor))

        ok = report(
            "feed service",
            *timings(service_call(engine, None), service_call(engine, far_cursor)),
        )
        # after the environment names the database
        from benchmax.api import build_api
        from benchmax.context import AppContext
        from benchmax.settings import get_settings

        loop = asyncio.new_event_loop()
        transport = httpx.ASGITransport(app=build_api(AppContext.from_settings(get_settings())))
        client = httpx.AsyncClient(transport=transport, base_url="http://bench")
        ok &= report(
            "GET /api/v1/tests (in-process ASGI)",
            *timings(api_call(loop, client, None), api_call(loop, client, far_cursor)),
        )
        loop.run_until_complete(client.aclose())
        loop.close()
        engine.dispose()
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
