"""What does the showcase cost at 100,000 reviewed Tests?

Seeds 100,000 public Tests, each with one to four reviews (about 250,000), into a fresh,
migrated SQLite database; 1,000 of the Tests share one prompt. Then it measures, each beside
a baseline taken in the same run on the same data:

* building and publishing a snapshot — scores, 95% intervals, rank bands, the seal chained to
  the previous one and its Ed25519 signature — (target < 10 s), against the floor of reading
  the same reviews and Tests and nothing else, and verifying it (rows, signature, chain);
* the ``/leaderboard`` first page (unfiltered, filtered by family, "declared single attempt
  only") and page 4,000, against the feed's first page (target: p95 < 50 ms);
* a comparison-group page at 1,000 Tests per prompt, against reading those 1,000 Test rows.

Pages are timed alternately with their baseline so background load hits both alike.
Exits non-zero when a target is missed.
"""

from __future__ import annotations

import os
import random
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

from sqlalchemy import Engine, insert, text  # noqa: E402
from sqlmodel import Session, select  # noqa: E402

from benchmax.db import make_engine  # noqa: E402
from benchmax.migrations import upgrade  # noqa: E402
from benchmax.models import (  # noqa: E402
    ModelFamily,
    Review,
    ReviewerKind,
    ReviewState,
    Test,
    TestState,
    User,
    prompt_key,
)
from benchmax.models._base import new_id, utcnow  # noqa: E402
from benchmax.services.feed import FeedFilters, list_feed  # noqa: E402
from benchmax.services.leaderboard.board import BoardFilters, board_page  # noqa: E402
from benchmax.services.leaderboard.signing import new_key_pair, private_key_from_hex  # noqa: E402
from benchmax.services.leaderboard.snapshots import build_snapshot, verify_snapshot  # noqa: E402
from benchmax.services.prompts.groups import prompt_group  # noqa: E402

TESTS = 100_000
GROUP = 1_000
USERS = 500
FAMILIES = 5
ROUNDS = 200
GROUP_ROUNDS = 40  # a group page reads 1,000 Tests and their reviews: fewer rounds
PAGE = 20
FAR_PAGE = 4_000
SHARED_PROMPT = "Build a to-do app in one HTML file.\nIt must survive a reload."
SETUPS = [
    ("Claude Sonnet 4.5", "Claude Code", "high"),
    ("GPT-5", "Codex CLI", "medium"),
    ("Gemini 2.5 Pro", "Gemini CLI", "low"),
    ("Kimi K2", "Cline", "none"),
    ("GLM-4.6", "Aider", "high"),
]


def seed(engine: Engine) -> None:
    """Core executemany in one transaction; keys computed here as the ORM would."""
    rng = random.Random(14)
    now = utcnow()
    users = [
        {"id": new_id(), "handle": f"b{n}", "display_name": f"B {n}", "auth_subject": f"b{n}"}
        for n in range(USERS)
    ]
    families = [
        {"id": new_id(), "slug": f"family-{n}", "name": f"Family {n}", "vendor": "", "position": n}
        for n in range(FAMILIES)
    ]
    shared_key = prompt_key(SHARED_PROMPT)
    with engine.begin() as conn:
        conn.execute(insert(User), users)
        conn.execute(insert(ModelFamily), families)
        for start in range(0, TESTS, 10_000):
            tests, reviews = [], []
            for n in range(start, min(start + 10_000, TESTS)):
                model, harness, reasoning = SETUPS[n % len(SETUPS)]
                prompt = SHARED_PROMPT if n < GROUP else f"Prompt number {n}, a little longer."
                published = now - timedelta(seconds=n // 2)
                test_id = new_id()
                tests.append(
                    {
                        "id": test_id,
                        "contributor_id": users[n % USERS]["id"],
                        "prompt": prompt,
                        "prompt_key": shared_key if n < GROUP else prompt_key(prompt),
                        "prompt_key_version": 1,
                        "model_label": model,
                        "model_key": model.lower(),
                        "harness_label": harness,
                        "harness_key": harness.lower(),
                        "reasoning_label": reasoning,
                        "reasoning_key": reasoning,
                        "family_id": families[n % FAMILIES]["id"],
                        "attempts": rng.choice([None, 1, 1, 2, 5]),
                        "output_text": f"Output {n}",
                        "state": TestState.PUBLIC.value,
                        "review_state": ReviewState.REVIEWED.value,
                        "evidence_kinds": "text",
                        "created_at": published,
                        "updated_at": published,
                        "submitted_at": published,
                        "published_at": published,
                    }
                )
                for _ in range(rng.randint(1, 4)):
                    reviews.append(
                        {
                            "id": new_id(),
                            "test_id": test_id,
                            "reviewer_kind": ReviewerKind.HUMAN.value,
                            "score": rng.randint(20, 100),
                            "reasoning": "Bench review reasoning text.",
                            "policy_version": "",
                            "created_at": published,
                        }
                    )
            conn.execute(insert(Test), tests)
            conn.execute(insert(Review), reviews)


def timed(call: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20)[-1]


def paired(calls: dict[str, Callable[[], int]], rounds: int = ROUNDS) -> dict[str, list[float]]:
    """Milliseconds per call, each round calling every function once in turn."""
    for call in calls.values():
        call()
    samples: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            start = time.perf_counter()
            assert call() > 0, name
            samples[name].append((time.perf_counter() - start) * 1000)
    return samples


def read_floor(engine: Engine) -> int:
    """The least a snapshot must do: read every review score and every public Test row."""
    with engine.connect() as conn:
        reviews = conn.execute(text("SELECT id, test_id, score FROM review")).all()
        tests = conn.execute(text("SELECT * FROM test WHERE state = 'public'")).all()
    return len(reviews) + len(tests)


def main() -> int:
    ok = True
    with tempfile.TemporaryDirectory(prefix="benchmax-board-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        os.environ.update(
            BENCHMAX_ENV="development", BENCHMAX_DATA_DIR=tmp, BENCHMAX_DATABASE_URL=url
        )
        upgrade(url)
        engine = make_engine(url)
        seconds, _ = timed(lambda: seed(engine))
        with engine.connect() as conn:
            reviews = conn.execute(text("SELECT count(*) FROM review")).scalar_one()
        print(f"seeded {TESTS:,} public Tests and {reviews:,} reviews in {seconds:.1f} s")

        floor, _ = timed(lambda: read_floor(engine))
        signer = private_key_from_hex(new_key_pair()[0])
        with Session(engine) as session:
            build, snapshot = timed(lambda: build_snapshot(session, "bench", signer))
            commit, _ = timed(session.commit)
            assert snapshot is not None
            build += commit
            verify, result = timed(lambda: verify_snapshot(session, snapshot.id, signer.public_hex))
            assert result.ok
            snapshot_id = snapshot.id
        built_ok = build < 10
        ok &= built_ok
        verdict = "OK" if built_ok else "MISSED"
        print(
            f"snapshot of {snapshot.row_count:,} rows: build + publish {build:.2f} s "
            f"(target < 10 s -> {verdict}); read floor {floor:.2f} s; "
            f"ratio {build / floor:.1f}x the floor; verify {verify:.2f} s"
        )

        cursor = None
        with Session(engine) as session:
            for _ in range(FAR_PAGE - 1):
                cursor = board_page(session, snapshot_id, BoardFilters(), cursor, PAGE).next_cursor

        def board(filters: BoardFilters, at: str | None = None) -> Callable[[], int]:
            def call() -> int:
                with Session(engine) as session:
                    return len(board_page(session, None, filters, at, PAGE).items)

            return call

        def feed_first() -> int:
            with Session(engine) as session:
                return len(list_feed(session, FeedFilters(), None, PAGE).items)

        samples = paired(
            {
                "feed page 1 (baseline)": feed_first,
                "leaderboard page 1": board(BoardFilters()),
                "leaderboard page 1, family": board(BoardFilters(family="family-2")),
                "leaderboard page 1, single attempt": board(BoardFilters(single_attempt=True)),
                f"leaderboard page {FAR_PAGE:,}": board(BoardFilters(), cursor),
            }
        )
        base = p95(samples["feed page 1 (baseline)"])
        for name, values in samples.items():
            fast = p95(values) < 50
            ok &= fast
            verdict = "OK" if fast else "MISSED"
            print(
                f"  {name:<36} p50 {statistics.median(values):6.2f} ms  p95 {p95(values):6.2f} ms"
                f"  {p95(values) / base:5.2f}x baseline  {verdict} (< 50 ms)"
            )

        key = prompt_key(SHARED_PROMPT)

        def group_page() -> int:
            with Session(engine) as session:
                group = prompt_group(session, key)
                return len(group.members) if group else 0

        def group_rows() -> int:
            with Session(engine) as session:
                return len(session.exec(select(Test).where(Test.prompt_key == key)).all())

        group_samples = paired(
            {"read 1,000 Test rows (baseline)": group_rows, "group page": group_page},
            GROUP_ROUNDS,
        )
        floor_ms = p95(group_samples["read 1,000 Test rows (baseline)"])
        page_ms = p95(group_samples["group page"])
        print(
            f"group page at {GROUP:,} Tests per prompt: p95 {page_ms:.1f} ms, "
            f"{page_ms / floor_ms:.1f}x reading the rows ({floor_ms:.1f} ms)"
        )
        engine.dispose()
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
