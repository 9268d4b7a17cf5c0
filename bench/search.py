"""Does search and filtering stay as cheap as the plain feed's first page?

Seeds ``--tests N`` public Tests (default 1,000,000) into a fresh, migrated SQLite file and a
fresh PostgreSQL database (ANALYZEd), with a Zipf-like word distribution so there are rare,
common and two-word queries, then times through the feed service: the unfiltered first page
(the baseline), a rare-word, a common-word and a two-word search, each single filter, and
search + filter. Prints p50/p95 and p95 as a ratio to the baseline measured in the same run
(targets: every p95 <= 3x the baseline and < 50 ms). Exits non-zero when a target is missed.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
from sqlalchemy import Engine, insert, text  # noqa: E402
from sqlmodel import Session  # noqa: E402

from benchmax.db import make_engine  # noqa: E402
from benchmax.migrations import upgrade  # noqa: E402
from benchmax.models import ReviewState, Test, TestState, User  # noqa: E402
from benchmax.models._base import new_id, utcnow  # noqa: E402
from benchmax.services.feed import FeedFilters, list_feed  # noqa: E402

PG_ADMIN = os.environ.get(
    "BENCHMAX_BENCH_PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
VOCABULARY = [f"w{n}" for n in range(20_000)]
WEIGHTS = [1 / (rank + 1) for rank in range(len(VOCABULARY))]  # Zipf: w0 common, w19999 rare
RARE = "zyxquartz"  # planted in 5 Tests
ROUNDS = 60
SETUPS = [("claude-sonnet-4-5", "claude-code", "high"), ("gpt-5", "codex-cli", "medium"),
          ("gemini-2-5-pro", "gemini-cli", "low"), ("kimi-k2", "cline", "none")]  # fmt: skip


def _rows(count: int, users: list[str], rng: random.Random) -> Any:
    now = utcnow()
    for n in range(count):
        model, harness, reasoning = SETUPS[n % len(SETUPS)]
        words = rng.choices(VOCABULARY, WEIGHTS, k=12)
        if n % (count // 5 or 1) == 0:
            words.append(RARE)
        yield {
            "id": new_id(),
            "contributor_id": users[n % len(users)],
            "title": " ".join(words[:5]),
            "prompt": " ".join(words),
            "model_label": model,
            "model_key": model,
            "harness_label": harness,
            "harness_key": harness,
            "reasoning_label": reasoning,
            "reasoning_key": reasoning,
            "output_text": "output " + " ".join(words[::-1]),
            "state": TestState.PUBLIC.value,
            "review_state": (ReviewState.REVIEWED if n % 7 == 0 else ReviewState.AWAITING).value,
            "evidence_kinds": "text",
            "published_at": now - timedelta(seconds=n),
        }


def seed(engine: Engine, count: int) -> None:
    """One transaction, executemany batches of 10,000 (psycopg sends them pipelined)."""
    rng = random.Random(16)
    users = [new_id() for _ in range(1000)]
    with engine.begin() as conn:
        conn.execute(
            insert(User),
            [{"id": u, "handle": f"b{n}", "auth_subject": f"b{n}"} for n, u in enumerate(users)],
        )
        batch: list[dict[str, Any]] = []
        for row in _rows(count, users, rng):
            batch.append(row)
            if len(batch) == 10_000:
                conn.execute(insert(Test), batch)
                batch = []
        if batch:
            conn.execute(insert(Test), batch)
        conn.execute(text("ANALYZE"))


CASES: list[tuple[str, dict[str, str]]] = [
    ("unfiltered first page", {}),
    ("rare word", {"q": RARE}),
    ("common word", {"q": "w0"}),
    ("two words", {"q": "w1 w2"}),
    ("common word, newest", {"q": "w0", "sort": "newest"}),
    ("model", {"model": "gpt-5"}),
    ("harness", {"harness": "cline"}),
    ("reasoning", {"reasoning": "high"}),
    ("contributor", {"contributor": "b7"}),
    ("status", {"status": "reviewed"}),
    ("search + model", {"q": "w1", "model": "gpt-5"}),
    ("search + contributor", {"q": "w1", "contributor": "b7"}),
]


def measure(engine: Engine, name: str) -> bool:
    results = {}
    for label, values in CASES:
        filters = FeedFilters(**values)
        samples = []
        with Session(engine) as session:
            list_feed(session, filters)  # warm
            for _ in range(ROUNDS):
                start = time.perf_counter()
                list_feed(session, filters)
                samples.append((time.perf_counter() - start) * 1000)
        results[label] = (statistics.median(samples), statistics.quantiles(samples, n=20)[-1])
    base = results["unfiltered first page"][1]
    ok = True
    print(f"{name}:")
    for label, (p50, p95) in results.items():
        hit = p95 <= 3 * base and p95 < 50
        ok &= hit
        print(
            f"  {label:24} p50 {p50:7.2f} ms  p95 {p95:7.2f} ms  x{p95 / base:5.2f}  "
            + ("OK" if hit else "MISSED")
        )
    return ok


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", type=int, default=1_000_000)
    count = parser.parse_args().tests
    ok = True
    with tempfile.TemporaryDirectory(prefix="benchmax-search-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        upgrade(url)
        engine = make_engine(url)
        started = time.perf_counter()
        seed(engine, count)
        print(f"SQLite: seeded {count:,} Tests in {time.perf_counter() - started:.0f} s")
        ok &= measure(engine, f"SQLite, {count:,} Tests")
        engine.dispose()
    database = f"bmx_bench_search_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{database}"')  # type: ignore[arg-type]
    url = PG_ADMIN.rsplit("/", 1)[0] + "/" + database
    try:
        upgrade(url)
        engine = make_engine(url)
        started = time.perf_counter()
        seed(engine, count)
        print(f"PostgreSQL: seeded {count:,} Tests in {time.perf_counter() - started:.0f} s")
        ok &= measure(engine, f"PostgreSQL (ANALYZEd), {count:,} Tests")
        engine.dispose()
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')  # type: ignore[arg-type]
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
