"""Does search and filtering stay as cheap as the plain feed's first page?

Seeds ``--tests N`` public Tests (default 1,000,000) into a fresh, migrated SQLite file and a
fresh PostgreSQL database (ANALYZEd), with a Zipf-like word distribution so there are rare,
common and two-word queries, then times through the feed service: the unfiltered first page
(the baseline), a rare-word, a common-word and a two-word search, each single filter, and
search + filter. The SQLite index is first merged as the app's periodic job keeps it
(``benchmax/services/search/maintenance.py``). Prints p50/p95 and p95 as a ratio to the
baseline measured in the same run (targets: every p95 <= 3x the baseline and < 50 ms).
Exits non-zero when a target is missed.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
from sqlalchemy import Engine, insert  # noqa: E402
from sqlmodel import Session, select  # noqa: E402

from benchmax.db import make_engine  # noqa: E402
from benchmax.migrations import head_revision, upgrade  # noqa: E402
from benchmax.models import (  # noqa: E402
    CatalogModel,
    Harness,
    ModelFamily,
    ReviewState,
    TestState,
    User,
)
from benchmax.models._base import new_id, utcnow  # noqa: E402
from benchmax.search_index import CARD_EXCERPT, FTS_TABLE  # noqa: E402
from benchmax.services.catalog.seed import seed_catalog  # noqa: E402
from benchmax.services.feed import FeedFilters, list_feed  # noqa: E402
from benchmax.services.jobs import JobContext  # noqa: E402
from benchmax.services.search.maintenance import merge_search_index, segment_count  # noqa: E402
from benchmax.settings import get_settings  # noqa: E402

PG_ADMIN = os.environ.get(
    "BENCHMAX_BENCH_PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
# Seeded databases are kept here between runs, keyed by size, seed version and schema head.
CACHE_DIR = Path(
    os.environ.get("BENCHMAX_BENCH_CACHE", Path(tempfile.gettempdir()) / "benchmax-bench-search")
)
SEED_VERSION = 2  # bump when the seeded rows change
VOCABULARY = [f"w{n}" for n in range(20_000)]
# Zipf: w0 common, w19999 rare (cumulative, so drawing a word is a bisection, not a sum)
CUM_WEIGHTS = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(VOCABULARY))))
RARE = "zyxquartz"  # planted in 5 Tests
ROUNDS = 200
# Untimed runs per case first: the pages a case reads are then in memory, as they are for a
# query the site answers all day (a cold read measures the disk, not the query).
WARMUP = 10
# (catalog model slug, family slug, harness slug, reasoning): the catalog links are set, as
# the submission path sets them, so the model, family and harness filters use them.
SETUPS = [("claude-sonnet-4-5", "claude", "claude-code", "high"),
          ("gpt-5", "gpt", "codex-cli", "medium"),
          ("gemini-2-5-pro", "gemini", "gemini-cli", "low"),
          ("kimi-k2", "kimi", "cline", "none")]  # fmt: skip
COLUMNS = (
    "id", "contributor_id", "title", "prompt", "model_label", "model_key", "catalog_model_id",
    "family_id", "harness_label", "harness_key", "harness_id", "reasoning_label",
    "reasoning_key", "output_text", "state", "review_state", "evidence_kinds", "prompt_key",
    "published_at", "created_at", "updated_at", "source_visibility", "settings_text", "notes",
    "model_version_label", "failure_code", "failure_reason", "wizard_step",
    "is_sample", "prompt_key_version", "idempotency_fingerprint",
)  # fmt: skip


def _catalog_ids(engine: Engine) -> list[tuple[str | None, str | None, str | None]]:
    """(model id, family id, harness id) per setup, from the seeded catalog."""
    with Session(engine) as session:
        seed_catalog(session)
        session.commit()
        ids = []
        for model, family, harness, _ in SETUPS:
            ids.append(
                (
                    session.exec(select(CatalogModel.id).where(CatalogModel.slug == model)).first(),
                    session.exec(select(ModelFamily.id).where(ModelFamily.slug == family)).first(),
                    session.exec(select(Harness.id).where(Harness.slug == harness)).first(),
                )
            )
    return ids


def _rows(url: str, count: int) -> Iterator[tuple[Any, ...]]:
    """Seeded rows as tuples in ``COLUMNS`` order, newest first (the catalog and 1,000
    contributors are written first, through the app's own engine)."""
    rng = random.Random(16)
    engine = make_engine(url)
    catalog = _catalog_ids(engine)
    users = [new_id() for _ in range(1000)]
    with engine.begin() as conn:
        conn.execute(
            insert(User),
            [{"id": u, "handle": f"b{n}", "auth_subject": f"b{n}"} for n, u in enumerate(users)],
        )
    engine.dispose()
    return _generate(count, rng, catalog, users)


def _generate(
    count: int, rng: random.Random, catalog: list[Any], users: list[str]
) -> Iterator[tuple[Any, ...]]:
    now = utcnow().replace(tzinfo=None)
    states = [s.value for s in (ReviewState.REVIEWED, ReviewState.AWAITING)]
    rare_every = count // 5 or 1
    for n in range(count):
        model, _, harness, reasoning = SETUPS[n % len(SETUPS)]
        model_id, family_id, harness_id = catalog[n % len(SETUPS)]
        words = rng.choices(VOCABULARY, cum_weights=CUM_WEIGHTS, k=12)
        if n % rare_every == 0:
            words.append(RARE)
        prompt = " ".join(words)
        stamp = now - timedelta(seconds=n)
        yield (
            new_id(), users[n % len(users)], " ".join(words[:5]), prompt, model, model,
            model_id, family_id, harness, harness, harness_id, reasoning, reasoning,
            "output " + " ".join(words[::-1]) * 3, TestState.PUBLIC.value,
            states[0 if n % 7 == 0 else 1], "text", f"{n % 50_000:064x}", stamp, stamp, stamp,
            "public", "", "", "", "", "", 5, False, 1, "",
        )  # fmt: skip


def _batches(rows: Iterator[tuple[Any, ...]], size: int = 20_000) -> Iterator[list[Any]]:
    batch: list[Any] = []
    for row in rows:
        batch.append(row)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def seed_sqlite(path: Path, count: int) -> None:
    """Indexes and the FTS triggers are dropped while the rows go in (one transaction, no
    journal) and rebuilt afterwards: building an index once is far cheaper than keeping it.
    The card excerpt's triggers stay, so each row gets its excerpt as the app's rows do."""
    rows = _rows(f"sqlite:///{path}", count)
    connection = sqlite3.connect(path, isolation_level=None)
    for pragma in ("journal_mode=OFF", "synchronous=OFF", "cache_size=-400000", "temp_store=2"):
        connection.execute(f"PRAGMA {pragma}")
    schema = connection.execute(
        "SELECT type, name, sql FROM sqlite_master WHERE tbl_name = 'test' AND sql IS NOT NULL "
        "AND type IN ('index', 'trigger') AND name NOT LIKE ?",
        (f"test_{CARD_EXCERPT}%",),
    ).fetchall()
    connection.execute("BEGIN")
    for kind, name, _ in schema:
        connection.execute(f'DROP {kind.upper()} "{name}"')
    placeholders = ", ".join("?" for _ in COLUMNS)
    statement = f"INSERT INTO test ({', '.join(COLUMNS)}) VALUES ({placeholders})"  # noqa: S608 (constants)
    for batch in _batches(rows):
        connection.executemany(statement, [_sqlite_row(row) for row in batch])
    for _, _, sql in schema:
        connection.execute(sql)
    connection.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')")  # noqa: S608
    connection.execute("COMMIT")
    connection.execute("ANALYZE")
    connection.close()


def _sqlite_row(row: tuple[Any, ...]) -> tuple[Any, ...]:
    stamp = row[COLUMNS.index("published_at")].isoformat(sep=" ")
    index = COLUMNS.index("published_at")
    return (*row[:index], stamp, stamp, stamp, *row[index + 3 :])


def seed_postgres(url: str, count: int) -> None:
    """COPY into ``test`` with its secondary indexes dropped, then rebuild them and ANALYZE."""
    rows = _rows(url, count)
    with psycopg.connect(url.replace("postgresql+psycopg", "postgresql")) as conn:
        indexes = conn.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'test' AND indexname "
            "NOT IN (SELECT conname FROM pg_constraint WHERE conrelid = 'test'::regclass)"
        ).fetchall()
        for name, _ in indexes:
            conn.execute(f'DROP INDEX "{name}"')
        with conn.cursor().copy(f"COPY test ({', '.join(COLUMNS)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        conn.execute("SET maintenance_work_mem = '256MB'")
        for _, definition in indexes:
            conn.execute(definition)
        conn.commit()
    with psycopg.connect(url.replace("postgresql+psycopg", "postgresql"), autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")


CASES: list[tuple[str, dict[str, str]]] = [
    ("unfiltered first page", {}),
    ("rare word", {"q": RARE}),
    ("common word", {"q": "w0"}),
    ("two words", {"q": "w1 w2"}),
    ("prefix", {"q": "w12*"}),
    ("phrase", {"q": '"w0 w1"'}),
    ("common word, newest", {"q": "w0", "sort": "newest"}),
    ("rare word, newest", {"q": RARE, "sort": "newest"}),
    ("model", {"model": "gpt-5"}),
    ("family", {"family": "gemini"}),
    ("harness", {"harness": "cline"}),
    ("reasoning", {"reasoning": "high"}),
    ("contributor", {"contributor": "b7"}),
    ("status", {"status": "reviewed"}),
    ("search + model", {"q": "w1", "model": "gpt-5"}),
    ("search + family", {"q": "w1", "family": "gemini"}),
    ("search + status", {"q": "w1", "status": "reviewed"}),
    ("search + contributor", {"q": "w1", "contributor": "b7"}),
    ("rare word + model", {"q": RARE, "model": "gpt-5"}),
]


def measure(engine: Engine, name: str, rounds: int = ROUNDS) -> bool:
    results = {}
    for label, values in CASES:
        filters = FeedFilters(**values)
        samples = []
        with Session(engine) as session:
            for _ in range(WARMUP):
                list_feed(session, filters)
            for _ in range(rounds):
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


def cached_sqlite(count: int, fresh: bool) -> str:
    """A seeded SQLite file for this size and schema, built once and reused."""
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    path = CACHE_DIR / f"search-{count}-v{SEED_VERSION}-{head_revision()}.db"
    if fresh or not path.exists():
        building = path.with_suffix(".building")
        building.unlink(missing_ok=True)
        upgrade(f"sqlite:///{building}")
        started = time.perf_counter()
        seed_sqlite(building, count)
        print(f"SQLite: seeded {count:,} Tests in {time.perf_counter() - started:.0f} s")
        building.replace(path)
    else:
        print(f"SQLite: reusing {path}")
    url = f"sqlite:///{path}"
    _merge_as_scheduled(url)
    return url


def _merge_as_scheduled(url: str) -> None:
    """Merge the FTS index as the periodic ``search_index_merge`` job keeps it (a bulk
    rebuild leaves it in several segments, as a long-running app's writes do)."""
    engine = make_engine(url)
    with engine.connect() as connection:
        before = segment_count(connection)
    ctx = JobContext.from_settings(get_settings(), engine=engine)
    while merge_search_index(ctx):
        pass
    with engine.connect() as connection:
        print(
            f"SQLite: FTS index in {before} segments, {segment_count(connection)} after the merge"
        )
    engine.dispose()


def _pg_admin(sql: str) -> None:
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(sql)


def cached_postgres(count: int, fresh: bool) -> str:
    """A seeded, ANALYZEd PostgreSQL database for this size and schema, kept between runs;
    it is built under a temporary name and renamed when complete."""
    database = f"bmx_bench_search_{count}_v{SEED_VERSION}_{head_revision()}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", (database,)
        ).fetchone()
    base = PG_ADMIN.rsplit("/", 1)[0]
    if exists and not fresh:
        print(f"PostgreSQL: reusing database {database}")
        return f"{base}/{database}"
    building = database + "_building"
    _pg_admin(f'DROP DATABASE IF EXISTS "{building}" WITH (FORCE)')
    _pg_admin(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
    _pg_admin(f'CREATE DATABASE "{building}"')
    upgrade(f"{base}/{building}")
    started = time.perf_counter()
    seed_postgres(f"{base}/{building}", count)
    print(f"PostgreSQL: seeded {count:,} Tests in {time.perf_counter() - started:.0f} s")
    _pg_admin(f'ALTER DATABASE "{building}" RENAME TO "{database}"')
    return f"{base}/{database}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", type=int, default=1_000_000)
    parser.add_argument("--engine", choices=("both", "sqlite", "postgres"), default="both")
    parser.add_argument("--fresh", action="store_true", help="reseed even if a cached copy exists")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="timed runs per case")
    parser.add_argument("--seed-only", action="store_true", help="build the cached copies only")
    args = parser.parse_args()
    ok = True
    for name, build in (("sqlite", cached_sqlite), ("postgres", cached_postgres)):
        if args.engine not in ("both", name):
            continue
        url = build(args.tests, args.fresh)
        if args.seed_only:
            continue
        engine = make_engine(url)
        label = "SQLite" if name == "sqlite" else "PostgreSQL (ANALYZEd)"
        ok &= measure(engine, f"{label}, {args.tests:,} Tests", args.rounds)
        engine.dispose()
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
