"""What does a comparison cost: a word diff of two 50 KB outputs, and a group page of 1,000?

Seeds a fresh, migrated SQLite database with 10,000 public Tests, 1,000 of them sharing one
prompt (each reviewed one to three times), two of those with 50 KB outputs that differ here
and there, as two runs of one prompt do. Then, each beside a baseline taken in the same run:

* the comparison ``/prompts/KEY?compare=A,B`` computes on the server — checking both ids,
  reading both outputs and rendering their word diff as escaped HTML — against reading the
  two rows (target: p95 < 200 ms); and the worst case, two unrelated 50 KB outputs;
* the group page's load at 1,000 members, as it was (the group, then preview figures for
  every member) and as it is (the group, then figures, output heads and images for the
  first page of columns), against reading the 1,000 rows (target: no slower than before).

Calls are timed alternately with their baseline so background load hits both alike.
Exits non-zero when a target is missed.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a plain script from anywhere

from sqlalchemy import Engine, insert  # noqa: E402
from sqlmodel import Session, col, select  # noqa: E402

from bench.leaderboard import p95, paired  # noqa: E402
from benchmax.db import make_engine  # noqa: E402
from benchmax.migrations import upgrade  # noqa: E402
from benchmax.models import Review, ReviewerKind, ReviewState, Test, TestState, User  # noqa: E402
from benchmax.models import prompt_key as key_of  # noqa: E402
from benchmax.models._base import new_id, utcnow  # noqa: E402
from benchmax.services.preview.compare import preview_figures  # noqa: E402
from benchmax.services.prompts.groups import prompt_group  # noqa: E402
from benchmax.services.prompts.side_by_side import compare_members, member_extras  # noqa: E402
from benchmax.settings import Settings  # noqa: E402

TESTS = 10_000
GROUP = 1_000
OUTPUT_CHARS = 50_000
PAGE = 12  # the columns a group page shows first (state/prompts.py)
ROUNDS = 60
GROUP_ROUNDS = 30
SHARED_PROMPT = "Write a technical explainer of B-trees, with code, for a new engineer."


def _prose(rng: random.Random, size: int) -> str:
    """Markdown-ish text of ``size`` characters: paragraphs, a list and code lines."""
    words = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 10)))
        for _ in range(4000)
    ]
    out: list[str] = []
    length = 0
    while length < size:
        kind = rng.random()
        if kind < 0.1:
            line = f"- {' '.join(rng.choices(words, k=8))}\n"
        elif kind < 0.2:
            line = f"    {rng.choice(words)} = {rng.choice(words)}({rng.randint(0, 99)})\n"
        else:
            line = " ".join(rng.choices(words, k=rng.randint(12, 40))) + ".\n\n"
        out.append(line)
        length += len(line)
    return "".join(out)[:size]


def _edited(rng: random.Random, text: str) -> str:
    """``text`` as a second run might give it: about one word in fifty changed, some lines
    dropped and some added."""
    lines = text.split("\n")
    result = []
    for line in lines:
        roll = rng.random()
        if roll < 0.03:
            continue
        words = line.split(" ")
        for i in range(len(words)):
            if rng.random() < 0.02:
                words[i] = "changed"
        result.append(" ".join(words))
        if roll > 0.98:
            result.append("An added sentence that the first run did not have.")
    return "\n".join(result)[:OUTPUT_CHARS]


def seed(engine: Engine) -> tuple[str, list[str]]:
    """Core executemany in one transaction; returns the group's key and the three Tests
    compared (two related 50 KB outputs, one unrelated)."""
    rng = random.Random(25)
    now = utcnow()
    users = [
        {"id": new_id(), "handle": f"c{n}", "display_name": f"C {n}", "auth_subject": f"c{n}"}
        for n in range(100)
    ]
    base = _prose(rng, OUTPUT_CHARS)
    big_outputs = [base, _edited(rng, base), _prose(rng, OUTPUT_CHARS)]
    shared = key_of(SHARED_PROMPT)
    tests, reviews, compared = [], [], []
    for n in range(TESTS):
        in_group = n < GROUP
        prompt = SHARED_PROMPT if in_group else f"Prompt number {n}."
        published = now - timedelta(seconds=n)
        test_id = new_id()
        output = big_outputs[n] if n < len(big_outputs) else f"Output {n} " * 20
        if n < len(big_outputs):
            compared.append(test_id)
        tests.append(
            {
                "id": test_id,
                "contributor_id": users[n % len(users)]["id"],
                "prompt": prompt,
                "prompt_key": shared if in_group else key_of(prompt),
                "prompt_key_version": 1,
                "model_label": f"Model {n % 7}",
                "model_key": f"model {n % 7}",
                "harness_label": "Claude Code",
                "harness_key": "claude code",
                "reasoning_label": "high",
                "reasoning_key": "high",
                "output_text": output,
                "state": TestState.PUBLIC.value,
                "review_state": ReviewState.REVIEWED.value,
                "evidence_kinds": "text",
                "created_at": published,
                "updated_at": published,
                "submitted_at": published,
                "published_at": published,
            }
        )
        for _ in range(rng.randint(1, 3) if in_group else 0):
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
    with engine.begin() as conn:
        conn.execute(insert(User), users)
        conn.execute(insert(Test), tests)
        conn.execute(insert(Review), reviews)
    return shared, compared


def main() -> int:
    ok = True
    with tempfile.TemporaryDirectory(prefix="benchmax-compare-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        os.environ.update(
            BENCHMAX_ENV="development", BENCHMAX_DATA_DIR=tmp, BENCHMAX_DATABASE_URL=url
        )
        upgrade(url)
        engine = make_engine(url)
        settings = Settings()
        key, (first, second, unrelated) = seed(engine)
        print(f"seeded {TESTS:,} public Tests, {GROUP:,} sharing one prompt")

        def read_two() -> int:
            with Session(engine) as session:
                rows = session.exec(
                    select(Test.id, Test.output_text).where(col(Test.id).in_((first, second)))
                ).all()
                return sum(len(text or "") for _, text in rows)

        def compare(a: str, b: str) -> Callable[[], int]:
            def call() -> int:
                with Session(engine) as session:
                    return len(compare_members(session, key, f"{a},{b}").diff.html)

            return call

        samples = paired(
            {
                "read the two rows (baseline)": read_two,
                "compare two runs (related)": compare(first, second),
                "compare unrelated outputs": compare(first, unrelated),
            },
            ROUNDS,
        )
        base = p95(samples["read the two rows (baseline)"])
        for name, values in samples.items():
            fast = p95(values) < 200
            ok &= fast
            print(
                f"  {name:<30} p50 {statistics.median(values):7.2f} ms  p95 {p95(values):7.2f} ms"
                f"  {p95(values) / base:6.1f}x baseline  {'OK' if fast else 'MISSED'} (< 200 ms)"
            )

        def read_group() -> int:
            with Session(engine) as session:
                return len(session.exec(select(Test).where(Test.prompt_key == key)).all())

        def page_before() -> int:
            """The group page's load before columns: figures for every member."""
            with Session(engine) as session:
                group = prompt_group(session, key)
                assert group is not None
                ids = [m.test.id for m in group.members]
                return len(preview_figures(session, settings, ids))

        def page_after() -> int:
            """The load now: figures, output heads and images for the first columns only."""
            with Session(engine) as session:
                group = prompt_group(session, key)
                assert group is not None
                ids = [m.test.id for m in group.members[:PAGE]]
                figures = preview_figures(session, settings, ids)
                return len(figures) + len(member_extras(session, ids))

        group_samples = paired(
            {
                "read 1,000 Test rows (baseline)": read_group,
                "group page, before": page_before,
                "group page, now": page_after,
            },
            GROUP_ROUNDS,
        )
        floor = p95(group_samples["read 1,000 Test rows (baseline)"])
        before = p95(group_samples["group page, before"])
        after = p95(group_samples["group page, now"])
        within = after <= before * 1.05
        ok &= within
        print(
            f"group page at {GROUP:,} members: before p95 {before:.1f} ms "
            f"({before / floor:.1f}x reading the rows), now p95 {after:.1f} ms "
            f"({after / floor:.1f}x; {after / before:.2f}x before) "
            f"{'OK' if within else 'MISSED'} (no slower than before); rows {floor:.1f} ms"
        )
        engine.dispose()
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
