"""How fast are the public reads next to a static file from the same server?

One uvicorn process on loopback serves the JSON API (``build_api``) on a migrated SQLite
database of public Tests, and a static file of about the feed's size from the same app.
An async httpx client sends the same number of requests to each, a few at a time, in this
same run, and prints requests per second (as a ratio to the static file) and p50/p95 latency:

- the Atom feed and the list API, a full 200 each (target: feed >= 0.35x the static file),
- the feed revalidated with its ETag, a 304 (target >= 0.6x).

Bounded: a fixed number of requests per case and round; everything lives in a temporary
directory. ``python -m bench.api``.
"""

from __future__ import annotations

import asyncio
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a plain script from anywhere

TESTS = 300
REQUESTS = 600
CONCURRENCY = 8
ROUNDS = 3
FEED = "/api/v1/feeds/tests.atom"
LIST = "/api/v1/tests?limit=20"
STATIC = "/static/feed-sized.xml"
_LISTENING = re.compile(r"Uvicorn running on http://127\.0\.0\.1:(\d+)")


def _seed(database_url: str) -> None:
    from sqlmodel import Session

    from benchmax.db import make_engine
    from benchmax.migrations import upgrade
    from benchmax.models import Test, TestState, User
    from benchmax.models._base import utcnow

    upgrade(database_url)
    engine = make_engine(database_url)
    settled = utcnow() - timedelta(hours=1)  # long settled: reads carry validators
    with Session(engine) as session:
        users = [
            User(handle=f"bench{n}", display_name=f"Bench {n}", auth_subject=f"b{n}")
            for n in range(10)
        ]
        session.add_all(users)
        session.flush()
        for n in range(TESTS):
            stamp = settled - timedelta(minutes=n)
            session.add(
                Test(
                    contributor_id=users[n % 10].id,
                    title=f"Benchmark Test {n}",
                    prompt=f"Build a small app number {n}.\n" + "Details. " * 40,
                    model_label="Claude Sonnet 4.5",
                    harness_label="Claude Code",
                    reasoning_label="medium",
                    output_text="It works. " * 50,
                    state=TestState.PUBLIC,
                    submitted_at=stamp,
                    published_at=stamp,
                    created_at=stamp,
                    updated_at=stamp,
                )
            )
        session.commit()
    engine.dispose()


def serve(database_url: str, static_dir: str) -> None:
    """The server process: the API and a static directory on one Starlette app."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import Mount
    from starlette.staticfiles import StaticFiles

    from benchmax.api import build_api
    from benchmax.context import AppContext
    from benchmax.settings import Settings

    settings = Settings(_env_file=None, env="test", database_url=database_url, data_dir=static_dir)
    api = build_api(AppContext.from_settings(settings))
    app = Starlette(routes=[Mount("/static", StaticFiles(directory=static_dir)), Mount("", api)])
    uvicorn.run(app, host="127.0.0.1", port=0, log_level="info", access_log=False)


@dataclass
class Result:
    name: str
    per_second: float
    p50_ms: float
    p95_ms: float


async def _load(
    base: str, path: str, headers: dict[str, str], expect: int
) -> tuple[float, list[float]]:
    latencies: list[float] = []
    queue = iter(range(REQUESTS))
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:

        async def worker() -> None:
            for _ in queue:
                started = time.perf_counter()
                response = await client.get(path, headers=headers)
                latencies.append(time.perf_counter() - started)
                if response.status_code != expect:
                    raise RuntimeError(f"{path}: {response.status_code}, expected {expect}")

        for _ in range(20):  # warm up: connections, caches
            await client.get(path, headers=headers)
        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
        elapsed = time.perf_counter() - started
    return REQUESTS / elapsed, latencies


def _measure(base: str, name: str, path: str, headers: dict[str, str], expect: int) -> Result:
    rates, samples = [], []
    for _ in range(ROUNDS):
        rate, latencies = asyncio.run(_load(base, path, headers, expect))
        rates.append(rate)
        samples.extend(latencies)
    samples.sort()
    return Result(
        name,
        statistics.median(rates),
        samples[len(samples) // 2] * 1000,
        samples[int(len(samples) * 0.95)] * 1000,
    )


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-api-") as tmp:
        database_url = f"sqlite:///{tmp}/bench.db"
        _seed(database_url)
        server = subprocess.Popen(
            [sys.executable, "-m", "bench.api", "--serve", database_url, tmp],
            cwd=ROOT,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        try:
            assert server.stderr is not None
            deadline = time.monotonic() + 60
            port = None
            while port is None and time.monotonic() < deadline:
                line = server.stderr.readline()
                if found := _LISTENING.search(line):
                    port = found.group(1)
            if port is None:
                raise RuntimeError("the server did not start")
            base = f"http://127.0.0.1:{port}"
            feed = httpx.get(base + FEED)
            Path(tmp, "feed-sized.xml").write_bytes(feed.content)  # the same bytes, as a file
            etag = feed.headers["ETag"]
            results = [
                _measure(base, "static file (baseline)", STATIC, {}, 200),
                _measure(base, "Atom feed, 200", FEED, {}, 200),
                _measure(base, "list API, 200", LIST, {}, 200),
                _measure(base, "Atom feed revalidated, 304", FEED, {"If-None-Match": etag}, 304),
            ]
        finally:
            server.terminate()
            server.wait(timeout=10)
    baseline = results[0].per_second
    print(f"{REQUESTS} requests x {ROUNDS} rounds, {CONCURRENCY} at a time, {TESTS} public Tests")
    for result in results:
        print(
            f"{result.name:30} {result.per_second:8.0f} req/s  {result.per_second / baseline:5.2f}x"
            f"  p50 {result.p50_ms:6.1f} ms  p95 {result.p95_ms:6.1f} ms"
        )
    print("targets: Atom feed >= 0.35x, revalidation >= 0.6x the static file")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.argv[2], sys.argv[3])
    else:
        main()
