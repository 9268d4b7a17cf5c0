"""The production topology under rising load: readers and contributors, against a baseline.

Starts ``benchmax.stack`` (two web replicas behind one port, two workers, one scheduler, the
user-content service, PostgreSQL, its own Redis, moto's S3 server) on loopback, seeds public
Tests through the API, then for each concurrency step (1, 5, 10, 25, 50) runs, one after the
other and each bounded in requests and seconds:

- baseline: a static file of the built front end, served by the same replicas through the
  same port (what the web server costs with no application work);
- readers: feed pages (the list API, following its cursor), Test pages (the HTML shell and
  the Test's JSON) and evidence bytes from the user-content origin, in turn: first back to
  back (a stress that finds where the stack saturates), then each reader 1 s apart, as people
  reading are;
- contributors: API submissions with a file, each with an Idempotency-Key and retried with
  the same key on failure, then waited on until every one is published.

Prints per step: requests/s, p50/p95/p99 and errors for each kind, the readers' p95 and
throughput as ratios to the baseline, lost and duplicated submissions (counted in
PostgreSQL by title), and the load average. Targets: 0 errors, 0 lost, 0 duplicated at every
step; read p95 < 100 ms at 50 concurrent readers (50 people reading, 1 s apart). The end
line says where the back-to-back readers' throughput peaked.

Run: ``.venv/bin/python -m bench.load`` (``--steps 1,5`` for a short run; ``--no-build`` if
the front end in ``.web`` is already built for this stack's origin).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import random
import re
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from sqlalchemy import create_engine, text

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a plain script from anywhere

from benchmax.stack.sample import SAMPLE_FORM, sample_png  # noqa: E402
from benchmax.stack.topology import Stack, StackConfig  # noqa: E402

STEPS = (1, 5, 10, 25, 50)
READ_SECONDS = 6.0
# Readers as people: a pause between requests (a quick reader's; most read far longer), so
# "50 concurrent readers" is 50 people on the site, not 50 loops asking back to back.
THINK_SECONDS = 1.0
PACED_SECONDS = 12.0
READ_REQUESTS_PER_WORKER = 200
SUBMISSIONS_PER_CONTRIBUTOR = 2
MAX_SUBMISSIONS_PER_STEP = 60
SEED_TESTS = 30
# Accounts made for the run are one per contributor of the largest step (contributors are
# people): behind fewer accounts, the per-account serialisation of submissions (the quota
# and the open-drafts cap lock the account's row) would be what the contributors measure.
TOKEN_MAKERS = 4  # the CLI makes each token in a process of its own; these run at once
DONE_STATES = ("public", "needs_attention", "failed")


@dataclass
class Sample:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    seconds: float = 0.0
    # Readers only: the same requests by kind (feed, shell, test, evidence).
    kinds: dict[str, Sample] = field(default_factory=dict)

    def pct(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds if self.seconds else 0.0

    def line(self, label: str) -> str:
        return (
            f"  {label:<13} {self.rate:8.1f} req/s  p50 {self.pct(0.5):7.1f}  "
            f"p95 {self.pct(0.95):7.1f}  p99 {self.pct(0.99):7.1f} ms  "
            f"n {len(self.latencies):5d}  errors {self.errors}"
        )


async def _timed(sample: Sample, call: Callable[[], Awaitable[bool]], kind: str = "") -> None:
    started = time.perf_counter()
    try:
        ok = await call()
    except httpx.HTTPError:
        ok = False
    for into in (sample, sample.kinds.setdefault(kind, Sample())) if kind else (sample,):
        if ok:
            into.latencies.append(time.perf_counter() - started)
        else:
            into.errors += 1


async def _run_workers(
    concurrency: int,
    seconds: float,
    per_worker: int,
    work: Callable[[int, Sample], Awaitable[None]],
    think: float = 0.0,
) -> Sample:
    """``concurrency`` loops of ``work`` until each did ``per_worker`` or the time is up,
    each pausing ``think`` seconds between requests (and a random part of it first, so the
    loops do not all ask at once)."""
    sample = Sample()
    deadline = time.monotonic() + seconds
    pauses = random.Random(concurrency)

    async def loop(worker: int) -> None:
        if think:
            await asyncio.sleep(pauses.uniform(0, think))
        for _ in range(per_worker):
            if time.monotonic() > deadline:
                return
            await work(worker, sample)
            if think:
                await asyncio.sleep(think)

    started = time.perf_counter()
    await asyncio.gather(*(loop(w) for w in range(concurrency)))
    sample.seconds = time.perf_counter() - started
    return sample


@dataclass
class Site:
    app: str
    content: str
    static_path: str
    test_ids: list[str]
    evidence_urls: list[str]
    tokens: list[str]


def _ok(response: httpx.Response, body: bytes | None = None) -> bool:
    return response.status_code == 200 and (body is None or response.content == body)


async def baseline(client: httpx.AsyncClient, site: Site, concurrency: int) -> Sample:
    async def work(_w: int, sample: Sample) -> None:
        async def call() -> bool:
            return _ok(await client.get(site.app + site.static_path))

        await _timed(sample, call)

    return await _run_workers(concurrency, READ_SECONDS, READ_REQUESTS_PER_WORKER, work)


async def readers(
    client: httpx.AsyncClient, site: Site, concurrency: int, think: float = 0.0
) -> Sample:
    """Each reader walks: a feed page, a Test page (shell + JSON), one evidence file; with
    ``think``, pausing that long between requests as a person reading does."""
    tests = itertools.cycle(site.test_ids)
    evidence = itertools.cycle(site.evidence_urls)
    cursors: dict[int, str | None] = {}
    kinds = itertools.cycle(("feed", "shell", "test", "evidence"))

    async def work(worker: int, sample: Sample) -> None:
        kind = next(kinds)

        async def call() -> bool:
            if kind == "feed":
                cursor = cursors.get(worker)
                params = {"limit": "10", **({"cursor": cursor} if cursor else {})}
                response = await client.get(site.app + "/api/v1/tests", params=params)
                if response.status_code == 200:
                    cursors[worker] = response.json()["next_cursor"]
                return _ok(response)
            if kind == "shell":
                return _ok(await client.get(f"{site.app}/tests/{next(tests)}"))
            if kind == "test":
                return _ok(await client.get(f"{site.app}/api/v1/tests/{next(tests)}"))
            return _ok(await client.get(next(evidence)))

        await _timed(sample, call, kind)

    seconds = PACED_SECONDS if think else READ_SECONDS
    sample = await _run_workers(concurrency, seconds, READ_REQUESTS_PER_WORKER, work, think)
    for part in sample.kinds.values():
        part.seconds = sample.seconds
    return sample


async def _submit(client: httpx.AsyncClient, site: Site, token: str, title: str) -> bool:
    """One submission, retried with the same Idempotency-Key through failures (30 s at most)."""
    key = uuid.uuid4().hex
    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": key}
    deadline = time.monotonic() + 30
    while True:
        try:
            response = await client.post(
                site.app + "/api/v1/tests",
                data={**SAMPLE_FORM, "title": title},
                files=[("files", ("shot.png", sample_png(), "image/png"))],
                headers=headers,
            )
            if response.status_code == 202:
                return True
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.2)


async def contributors(
    client: httpx.AsyncClient, site: Site, concurrency: int, run: str
) -> tuple[Sample, list[str]]:
    per = max(1, min(SUBMISSIONS_PER_CONTRIBUTOR, MAX_SUBMISSIONS_PER_STEP // concurrency))
    titles: list[str] = []

    async def work(worker: int, sample: Sample) -> None:
        title = f"load {run} c{concurrency} w{worker} #{len(titles)}"
        titles.append(title)
        token = site.tokens[worker % len(site.tokens)]
        await _timed(sample, lambda: _submit(client, site, token, title))

    sample = await _run_workers(concurrency, 60.0, per, work)
    return sample, titles


def count_titles(database_url: str, titles: list[str]) -> tuple[int, int, int]:
    """(lost, duplicated, still unfinished) among ``titles``, read from PostgreSQL."""
    engine = create_engine(database_url)
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT title, count(*), sum(CASE WHEN state = ANY(:done) THEN 0 ELSE 1 END) "
                "FROM test WHERE title = ANY(:titles) GROUP BY title"
            ),
            {"titles": titles, "done": list(DONE_STATES)},
        ).all()
    engine.dispose()
    lost = len(set(titles) - {r[0] for r in rows})
    duplicated = sum(r[1] - 1 for r in rows)
    unfinished = sum(int(r[2]) for r in rows)
    return lost, duplicated, unfinished


def wait_finished(database_url: str, titles: list[str], timeout: float) -> tuple[int, int, int]:
    deadline = time.monotonic() + timeout
    while True:
        lost, duplicated, unfinished = count_titles(database_url, titles)
        if unfinished == 0 or time.monotonic() > deadline:
            return lost, duplicated, unfinished
        time.sleep(1)


def static_asset(stack: Stack) -> str:
    """A file of the built front end (the largest small one), as served at the app's root."""
    client_dir = ROOT / ".web" / "build" / "client"
    candidates = sorted(
        (p for p in client_dir.rglob("*.js") if p.stat().st_size < 64 * 1024),
        key=lambda p: p.stat().st_size,
    )
    if not candidates:
        raise SystemExit("no built front end under .web/build/client; run without --no-build")
    return "/" + candidates[-1].relative_to(client_dir).as_posix()


async def seed(stack: Stack, tokens: list[str]) -> Site:
    cfg = stack.config
    app = f"http://127.0.0.1:{cfg.base_port}"
    site = Site(app, cfg.usercontent_origin, static_asset(stack), [], [], tokens)
    async with httpx.AsyncClient(timeout=60) as client:
        run = uuid.uuid4().hex[:6]
        titles = [f"seed {run} {i}" for i in range(SEED_TESTS)]
        await asyncio.gather(
            *(_submit(client, site, tokens[i % len(tokens)], t) for i, t in enumerate(titles))
        )
        wait_finished(cfg.database_url, titles, timeout=180)
        listing = await client.get(app + "/api/v1/tests", params={"limit": "50"})
        site.test_ids = [item["id"] for item in listing.json()["items"]]
        for test_id in site.test_ids[:10]:
            detail = (await client.get(f"{app}/api/v1/tests/{test_id}")).json()
            site.evidence_urls += [item["url"] for item in detail["evidence"]]
    if not site.test_ids or not site.evidence_urls:
        raise SystemExit("seeding produced no public Tests with evidence")
    return site


def _loadavg() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


async def measure(stack: Stack, site: Site, steps: list[int]) -> bool:
    met = True
    run = uuid.uuid4().hex[:6]
    peak = (0.0, 0)
    for concurrency in steps:
        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        async with httpx.AsyncClient(timeout=30, limits=limits) as client:
            base = await baseline(client, site, concurrency)
            read = await readers(client, site, concurrency)
            paced = await readers(client, site, concurrency, THINK_SECONDS)
            write, titles = await contributors(client, site, concurrency, run)
        lost, duplicated, unfinished = wait_finished(stack.config.database_url, titles, 180)
        print(f"\n== {concurrency} concurrent  (load average {_loadavg()}, {os.cpu_count()} cores)")
        print(base.line("baseline"))
        print(read.line("readers"))
        print(paced.line(f"  {THINK_SECONDS:g} s apart"))
        for kind, part in sorted(paced.kinds.items()):
            print(part.line(f"    {kind}"))
        print(write.line("contributors"))
        ratio_p95 = read.pct(0.95) / base.pct(0.95)
        ratio_rate = read.rate / base.rate if base.rate else float("nan")
        print(
            f"  readers/baseline: p95 x{ratio_p95:.2f}, throughput x{ratio_rate:.2f}  |  "
            f"submissions: {len(titles)} sent, lost {lost}, duplicated {duplicated}, "
            f"unfinished after 180 s {unfinished}"
        )
        errors = base.errors + read.errors + paced.errors + write.errors
        met &= errors == 0 and lost == 0 and duplicated == 0 and unfinished == 0
        if concurrency == 50:
            met &= paced.pct(0.95) < 100
        peak = max(peak, (read.rate, concurrency))
    rate, at = peak
    print(
        f"\nreaders back to back peaked at {rate:.0f} req/s with {at} concurrent; past that "
        "the requests queue for the two cores (replicas, proxy, workers, databases and this "
        "load generator share them), so p95 grows with concurrency"
    )
    return met


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.load", description=__doc__)
    parser.add_argument("--steps", default=",".join(map(str, STEPS)))
    parser.add_argument("--port", type=int, default=4700)
    parser.add_argument("--no-build", action="store_true")
    args = parser.parse_args(argv)
    steps = [int(s) for s in args.steps.split(",") if re.fullmatch(r"\d+", s)]
    data_dir = Path(tempfile.mkdtemp(prefix="benchmax-load-"))
    config = StackConfig(
        base_port=args.port,
        s3_port=args.port + 90,
        database="benchmax_stack",
        data_dir=data_dir,
        build_frontend=not args.no_build,
        # Each account submits again at every step: lift the per-account caps that would
        # otherwise (correctly) refuse it, so the figures are about capacity.
        extra_env={
            "BENCHMAX_API_SUBMISSION_RATE_LIMIT": "100000",
            "BENCHMAX_MAX_OPEN_DRAFTS": "100000",
            "BENCHMAX_SCAN_CONCURRENCY_PER_ACCOUNT": "4",
        },
    )
    stack = Stack(config)
    started = time.monotonic()
    try:
        stack.start(timeout=900)
        print(f"stack up in {time.monotonic() - started:.0f}s; logs in {stack.logs}")
        handles = [f"load{uuid.uuid4().hex[:8]}" for _ in range(max(steps, default=1))]
        with ThreadPoolExecutor(TOKEN_MAKERS) as pool:
            tokens = list(pool.map(stack.create_token, handles))
        site = asyncio.run(seed(stack, tokens))
        print(
            f"seeded: {len(site.test_ids)} public Tests, {len(site.evidence_urls)} evidence "
            f"files; baseline file {site.static_path}"
        )
        met = asyncio.run(measure(stack, site, steps))
    finally:
        stack.stop()
    print(f"\ntargets {'met' if met else 'NOT met'} (total {time.monotonic() - started:.0f}s)")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
