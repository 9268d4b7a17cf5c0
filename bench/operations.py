"""How fast is /operations with a big history, and what does a backup cost per GiB?

1. Seeds 100,000 Tests (the last day's with a submit → publish delay) and 1,000,000 job rows
   (mostly done, some pending, dead and discarded) into a fresh, migrated SQLite database with
   bulk Core inserts, records one metric sample as the scheduler would, then times
   ``dashboard()`` — the whole /operations data load — and prints p50/p95 (target < 200 ms).
2. Writes ``EVIDENCE_MIB`` of evidence objects to local storage and times ``create_backup``
   (snapshot + SHA-256 of every object + manifest) against a plain file copy of the same
   bytes in the same run, and prints both scaled to seconds per GiB and their ratio.

Exits non-zero when the dashboard target is missed.
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a plain script from anywhere

from sqlalchemy import Engine, insert  # noqa: E402
from sqlmodel import Session  # noqa: E402

from benchmax.adapters.storage.local import LocalStorage  # noqa: E402
from benchmax.db import make_engine  # noqa: E402
from benchmax.migrations import upgrade  # noqa: E402
from benchmax.models import EvidenceFile, Job, Test, TestState, User  # noqa: E402
from benchmax.models._base import new_id, utcnow  # noqa: E402
from benchmax.services.backup import create_backup  # noqa: E402
from benchmax.services.operations import dashboard, record_sample  # noqa: E402

TESTS = 100_000
JOBS = 1_000_000
USERS = 500
ROUNDS = 30
TARGET_MS = 200.0
EVIDENCE_MIB = 256
OBJECT_MIB = 4
KINDS = ("safety_scan", "publish", "evaluate", "judge")
BATCH = 50_000


def _seed(engine: Engine) -> None:
    now = utcnow()
    rng = random.Random(7)
    users = [
        {
            "id": new_id(),
            "handle": f"u{n}",
            "display_name": "",
            "auth_subject": f"bench|{n}",
            "role": "contributor",
            "status": "active",
            "created_at": now,
        }
        for n in range(USERS)
    ]
    with engine.begin() as conn:
        conn.execute(insert(User), users)
        tests: list[dict[str, Any]] = []
        for n in range(TESTS):
            published = now - timedelta(minutes=n * 0.5)  # ~2,900 in the last 24 hours
            tests.append(
                {
                    "id": new_id(),
                    "contributor_id": users[n % USERS]["id"],
                    "title": "",
                    "prompt": f"Prompt {n}",
                    "model_label": "M",
                    "harness_label": "H",
                    "reasoning_label": "low",
                    "state": TestState.PUBLIC.value,
                    "created_at": published,
                    "updated_at": published,
                    "submitted_at": published - timedelta(seconds=rng.uniform(2, 90)),
                    "published_at": published,
                }
            )
            if len(tests) == BATCH:
                conn.execute(insert(Test), tests)
                tests = []
        if tests:
            conn.execute(insert(Test), tests)
        jobs: list[dict[str, Any]] = []
        for n in range(JOBS):
            roll = rng.random()
            state = (
                "done"
                if roll < 0.97
                else "pending"
                if roll < 0.99
                else "dead"
                if roll < 0.995
                else "discarded"
            )
            jobs.append(
                {
                    "kind": KINDS[n % len(KINDS)],
                    "subject_id": f"s{n}",
                    "state": state,
                    "attempts": 5 if state == "dead" else 1,
                    "max_attempts": 5,
                    "next_attempt_at": now - timedelta(seconds=n % 3600),
                    "lease_owner": "",
                    "last_error_code": "Boom" if state == "dead" else "",
                    "created_at": now,
                    "updated_at": now,
                }
            )
            if len(jobs) == BATCH:
                conn.execute(insert(Job), jobs)
                jobs = []
        if jobs:
            conn.execute(insert(Job), jobs)


def _dashboard_load(work: Path) -> float:
    url = f"sqlite:///{work / 'ops.db'}"
    upgrade(url)
    engine = make_engine(url)
    storage = LocalStorage(work / "ops-objects")
    started = time.perf_counter()
    _seed(engine)
    print(f"seeded {TESTS:,} Tests and {JOBS:,} jobs in {time.perf_counter() - started:.1f} s")
    with Session(engine) as session:
        record_sample(session, storage)
        session.commit()
        dashboard(session, storage)  # warm the page cache like a page that is already open
        timings = []
        for _ in range(ROUNDS):
            started = time.perf_counter()
            data = dashboard(session, storage)
            timings.append((time.perf_counter() - started) * 1000)
            session.expire_all()
    engine.dispose()
    p50 = statistics.median(timings)
    p95 = statistics.quantiles(timings, n=20)[-1]
    print(
        f"/operations data load: p50 {p50:.1f} ms, p95 {p95:.1f} ms over {ROUNDS} loads "
        f"(target < {TARGET_MS:.0f} ms); {len(data.dead_jobs)} dead jobs listed, "
        f"ttp p50 {data.time_to_public.p50_seconds:.1f} s over {data.time_to_public.published}"
    )
    return p95


def _backup_cost(work: Path) -> None:
    url = f"sqlite:///{work / 'backup.db'}"
    upgrade(url)
    engine = make_engine(url)
    storage = LocalStorage(work / "objects")
    now = utcnow()
    with engine.begin() as conn:
        user = {
            "id": new_id(),
            "handle": "b",
            "display_name": "",
            "auth_subject": "bench|b",
            "role": "contributor",
            "status": "active",
            "created_at": now,
        }
        conn.execute(insert(User), [user])
        test_id = new_id()
        conn.execute(
            insert(Test),
            [
                {
                    "id": test_id,
                    "contributor_id": user["id"],
                    "title": "",
                    "prompt": "p",
                    "model_label": "M",
                    "harness_label": "H",
                    "reasoning_label": "low",
                    "state": "public",
                    "created_at": now,
                    "updated_at": now,
                }
            ],
        )
        for _ in range(EVIDENCE_MIB // OBJECT_MIB):
            evidence_id = new_id()
            key = f"evidence/{test_id}/{evidence_id}"
            storage.put(key, [os.urandom(OBJECT_MIB * 1024 * 1024)])
            conn.execute(
                insert(EvidenceFile),
                [
                    {
                        "id": evidence_id,
                        "test_id": test_id,
                        "original_name": "f",
                        "safe_name": "f",
                        "storage_key": key,
                        "state": "approved",
                        "scan_report": {},
                        "created_at": now,
                        "updated_at": now,
                    }
                ],
            )
    copies, backups = [], []
    for round_number in range(2):  # alternate so other load falls on both alike
        destination = work / f"copy-{round_number}"
        started = time.perf_counter()
        for path in sorted((work / "objects" / "evidence").rglob("*")):
            if path.is_file():
                target = destination / path.relative_to(work / "objects")
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
        copies.append(time.perf_counter() - started)
        started = time.perf_counter()
        create_backup(engine, storage, created_by="bench")
        backups.append(time.perf_counter() - started)
    engine.dispose()
    gib = EVIDENCE_MIB / 1024
    backup_s, copy_s = min(backups), min(copies)
    print(
        f"backup of {EVIDENCE_MIB} MiB of evidence: {backup_s:.2f} s "
        f"→ {backup_s / gib:.1f} s per GiB; plain file copy of the same bytes: {copy_s:.2f} s "
        f"→ {copy_s / gib:.1f} s per GiB; backup/copy ratio {backup_s / copy_s:.2f} "
        "(scaled linearly from the measured amount)"
    )


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="bench-ops-") as scratch:
        p95 = _dashboard_load(Path(scratch))
        _backup_cost(Path(scratch))
    if p95 >= TARGET_MS:
        print(f"FAIL: p95 {p95:.1f} ms is over the {TARGET_MS:.0f} ms target")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
