"""Fairness: another account's one-image Test while one account floods the scanner.

The victim is one contributor uploading a small screenshot and submitting at once; its
time-to-public runs from the upload's commit (the scan starts there) until the Test reads
public. It is measured first on an idle queue (the baseline) and then while a second
account has a flood of expensive images in the scanner (large JPEGs, each a full decode and
re-encode), and the script prints the loaded/unloaded ratio (target: at most 2).

Both queue shapes run the real code:

* embedded default: SQLite, local storage, Taskiq's in-memory broker in this process;
* production shape: PostgreSQL, Redis streams and one real ``taskiq worker`` subprocess.

For contrast, the embedded run also measures one victim with the per-account cap lifted
(``BENCHMAX_SCAN_CONCURRENCY_PER_ACCOUNT`` larger than the flood), which is how the queue
behaved before scans were shared fairly.

Previews get the same treatment (``previews``, embedded default, the real local sandbox):
account A has 20 ZIPs published at once, account B one; B's time from publication to a
finished preview is measured on an idle worker and then right after A's flood started (A's
first preview already running: the worst moment), and the ratio printed. The worker has its
default preview slots (two): A, at its cap of one, never holds both. The day's budget
is set so that A alone could spend it; A's share of it must leave B's evaluations counted.

Run: ``.venv/bin/python -m bench.fairness`` (needs PostgreSQL and Redis for the second part);
``.venv/bin/python -m bench.fairness previews`` runs the preview part alone.
"""

from __future__ import annotations

import io
import logging
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from PIL import Image
from sqlalchemy import update
from sqlmodel import col, func, select

from bench.pipeline import _settings, production_stack
from bench.scan import _photo
from benchmax.adapters.storage.local import LocalStorage
from benchmax.cli.main import db_upgrade
from benchmax.db import make_engine
from benchmax.models import (
    Job,
    JobState,
    PreviewAccountDay,
    PreviewBudgetDay,
    PreviewEvaluation,
    PreviewState,
    Test,
    TestState,
    User,
)
from benchmax.services import submissions
from benchmax.services.jobs import JobContext
from benchmax.services.preview.jobs import PREVIEW_EVALUATE
from benchmax.services.submissions import SCAN_EVIDENCE
from benchmax.settings import Settings

ROUNDS = 7
FLOOD_TESTS, FLOOD_FILES_PER_TEST = 2, 12
TARGET_RATIO = 2.0
_FIELDS = {
    "prompt": "Draw a chart.",
    "model_label": "Claude Sonnet 4.5",
    "harness_label": "Claude Code",
    "reasoning_label": "high",
}


def _expensive_image(path: Path) -> Path:
    """A 20-megapixel photo-like JPEG: seconds of decoding and re-encoding for the scanner."""
    out = io.BytesIO()
    _photo((5000, 4000)).save(out, format="JPEG", quality=85)
    path.write_bytes(out.getvalue())
    return path


def _small_image(path: Path) -> Path:
    Image.linear_gradient("L").resize((640, 400)).convert("RGB").save(path, format="PNG")
    return path


def _account(ctx: JobContext, handle: str) -> User:
    with ctx.session() as session:
        user = User(handle=handle, auth_subject=f"bench|{handle}")
        session.add(user)
        session.commit()
    return user


def _upload(ctx: JobContext, user: User, paths: list[Path]) -> str:
    """A draft with ``paths`` uploaded, one commit per file as the wizard does."""
    with ctx.session() as session:
        test = submissions.create_draft(session, user, ctx.settings)
        submissions.save_draft(session, user, test.id, _FIELDS)
        session.commit()
    for path in paths:
        with ctx.session() as session, path.open("rb") as data:
            submissions.add_file(
                session, ctx.storage, user, test.id, path.name, data, settings=ctx.settings
            )
            session.commit()
    return test.id


def _victim_round(ctx: JobContext, user: User, image: Path, timeout: float = 120) -> float:
    with ctx.session() as session:
        test = submissions.create_draft(session, user, ctx.settings)
        submissions.save_draft(session, user, test.id, _FIELDS)
        with image.open("rb") as data:
            submissions.add_file(
                session, ctx.storage, user, test.id, image.name, data, settings=ctx.settings
            )
        started = time.perf_counter()
        session.commit()
        submissions.submit(session, user, test.id)
        session.commit()
    deadline = time.monotonic() + timeout
    while True:
        with ctx.session() as session:
            state = session.exec(select(Test.state).where(Test.id == test.id)).one()
        if state == TestState.PUBLIC:
            return time.perf_counter() - started
        if state != TestState.PROCESSING or time.monotonic() > deadline:
            raise RuntimeError(f"the victim's Test ended {state}")
        time.sleep(0.01)


def _flood_waiting(ctx: JobContext, user: User) -> int:
    with ctx.session() as session:
        return session.exec(
            select(func.count()).where(
                Job.kind == SCAN_EVIDENCE,
                Job.account_id == user.id,
                col(Job.state).in_([JobState.PENDING, JobState.RUNNING]),
            )
        ).one()


def _measure(ctx: JobContext, flood_images: list[Path], small: Path, tag: str) -> dict[str, float]:
    """Victim rounds on an idle queue, then during a flood; the flood must outlast them."""
    victim, flooder = _account(ctx, f"victim{tag}"), _account(ctx, f"flooder{tag}")
    _victim_round(ctx, victim, small)  # warm-up: imports, connections, the first child
    unloaded = [_victim_round(ctx, victim, small) for _ in range(ROUNDS)]
    for _ in range(FLOOD_TESTS):
        _upload(ctx, flooder, flood_images)
    loaded = []
    for _ in range(ROUNDS):
        if not _flood_waiting(ctx, flooder):
            raise RuntimeError("the flood drained before the loaded rounds ended; make it bigger")
        loaded.append(_victim_round(ctx, victim, small))
    figures = {
        "unloaded": statistics.median(unloaded),
        "loaded": statistics.median(loaded),
        "loaded_worst": max(loaded),
        "left": _flood_waiting(ctx, flooder),
    }
    _stop_flood(ctx, flooder)
    return figures


def _stop_flood(ctx: JobContext, flooder: User) -> None:
    """Discard the flood's waiting scans and let its running ones end before the next run."""
    with ctx.session() as session:
        session.execute(
            update(Job)
            .where(col(Job.account_id) == flooder.id, col(Job.state) == JobState.PENDING)
            .values(state=JobState.DISCARDED)
        )
        session.commit()
    while _flood_waiting(ctx, flooder):
        time.sleep(0.1)


@contextmanager
def _embedded(scratch: Path, cap: int) -> Iterator[JobContext]:
    from benchmax.runtime.runner import JobRuntime, start_dispatcher

    database = scratch / f"embedded-{cap}.db"
    db_upgrade(f"sqlite:///{database}")
    settings = _settings(scratch / "var", f"sqlite:///{database}", scan_concurrency_per_account=cap)
    ctx = JobContext.from_settings(
        settings,
        engine=make_engine(settings.resolved_database_url),
        storage=LocalStorage(scratch / f"objects-{cap}"),
    )
    runtime = JobRuntime(ctx)
    dispatcher = start_dispatcher(runtime)
    ctx.queue.attach(dispatcher)
    try:
        yield ctx
    finally:
        ctx.queue.attach(None)
        dispatcher.close()
        runtime.close()
        ctx.engine.dispose()


def _report(label: str, figures: dict[str, float]) -> None:
    ratio = figures["loaded"] / figures["unloaded"]
    verdict = "meets" if ratio <= TARGET_RATIO else "misses"
    print(
        f"{label:34s} unloaded {figures['unloaded']:5.2f} s  loaded {figures['loaded']:5.2f} s "
        f"(worst {figures['loaded_worst']:5.2f} s)  ratio {ratio:4.2f} ({verdict} target "
        f"<= {TARGET_RATIO:g}; {figures['left']:.0f} flood scans still queued)"
    )


PREVIEW_FLOOD = 20
PREVIEW_BUDGET, PREVIEW_SHARE = 6, 3


@contextmanager
def _embedded_previews(scratch: Path) -> Iterator[JobContext]:
    from benchmax.runtime.runner import JobRuntime, start_dispatcher

    database = scratch / "previews.db"
    db_upgrade(f"sqlite:///{database}")
    settings = _settings(
        scratch / "var-previews",
        f"sqlite:///{database}",
        preview_sandbox="local",
        job_lease_seconds=120,
        preview_timeout_seconds=60,
        preview_daily_budget=PREVIEW_BUDGET,
        preview_account_daily_budget=PREVIEW_SHARE,
    )
    ctx = JobContext.from_settings(
        settings,
        engine=make_engine(settings.resolved_database_url),
        storage=LocalStorage(scratch / "objects-previews"),
    )
    runtime = JobRuntime(ctx)
    dispatcher = start_dispatcher(runtime)
    ctx.queue.attach(dispatcher)
    try:
        yield ctx
    finally:
        ctx.queue.attach(None)
        dispatcher.close()
        runtime.close()
        ctx.engine.dispose()


def _publish_with_zip(ctx: JobContext, user: User) -> str:
    """A public Test of ``user`` with an approved source ZIP, its preview requested as
    publication requests it."""
    from benchmax.services.preview.jobs import request_preview
    from tests.support.preview_sites import WORKING, publish_site

    with ctx.session() as session:
        test = publish_site(session, ctx.storage, WORKING, contributor=session.get(User, user.id))
        request_preview(session, ctx.settings, test.id)
        session.commit()
        return test.id


def _preview_finished(ctx: JobContext, test_id: str) -> bool:
    with ctx.session() as session:
        states = session.exec(
            select(PreviewEvaluation.state).where(PreviewEvaluation.test_id == test_id)
        ).all()
    return bool(states) and all(state != PreviewState.PENDING for state in states)


def _preview_round(ctx: JobContext, user: User, timeout: float = 600) -> float:
    started = time.perf_counter()
    test_id = _publish_with_zip(ctx, user)
    deadline = time.monotonic() + timeout
    while not _preview_finished(ctx, test_id):
        if time.monotonic() > deadline:
            raise RuntimeError("the preview did not finish")
        time.sleep(0.05)
    return time.perf_counter() - started


def _previews_running(ctx: JobContext, user: User) -> int:
    with ctx.session() as session:
        return session.exec(
            select(func.count()).where(
                Job.kind == PREVIEW_EVALUATE,
                Job.account_id == user.id,
                col(Job.state) == JobState.RUNNING,
            )
        ).one()


def _used(ctx: JobContext, user: User | None) -> int:
    with ctx.session() as session:
        if user is None:
            return sum(session.exec(select(PreviewBudgetDay.used)).all())
        return sum(
            session.exec(
                select(PreviewAccountDay.used).where(PreviewAccountDay.contributor_id == user.id)
            ).all()
        )


def previews(scratch: Path) -> None:
    with _embedded_previews(scratch) as ctx:
        flooder, other = _account(ctx, "preview-a"), _account(ctx, "preview-b")
        unloaded = _preview_round(ctx, other)
        for _ in range(PREVIEW_FLOOD):
            _publish_with_zip(ctx, flooder)
        deadline = time.monotonic() + 120
        while not _previews_running(ctx, flooder):
            if time.monotonic() > deadline:
                raise RuntimeError("the flood never started")
            time.sleep(0.05)
        loaded = _preview_round(ctx, other)
        deadline = time.monotonic() + 600
        while _used(ctx, flooder) < PREVIEW_SHARE or _previews_running(ctx, flooder):
            if time.monotonic() > deadline:
                raise RuntimeError("the flood never spent its share")
            time.sleep(0.2)
        ratio = loaded / unloaded
        verdict = "meets" if ratio <= TARGET_RATIO else "misses"
        label = f"preview, embedded ({ctx.settings.preview_slots} slots)"
        print(
            f"{label:34s} unloaded {unloaded:5.2f} s  loaded "
            f"{loaded:5.2f} s  ratio {ratio:4.2f} ({verdict} target <= {TARGET_RATIO:g}; "
            f"A had {PREVIEW_FLOOD} ZIPs queued, its first preview running)"
        )
        spent_by_flood, spent = _used(ctx, flooder), _used(ctx, None)
        left = PREVIEW_BUDGET - spent
        kept = left > 0 and spent_by_flood <= PREVIEW_SHARE
        print(
            f"{'preview budget':34s} day {spent} of {PREVIEW_BUDGET} used; A {spent_by_flood} "
            f"of its share {PREVIEW_SHARE}, the rest of its flood waits for tomorrow; "
            f"B {_used(ctx, other)}; {left} left for other accounts "
            f"({'A never exhausted it' if kept else 'EXHAUSTED'})"
        )
        # The flood's last preview may still be ending as the runtime stops; its abandoned
        # message is expected, and not worth a screen of warnings.
        logging.disable(logging.ERROR)


def main() -> None:
    if sys.argv[1:] == ["previews"]:
        with tempfile.TemporaryDirectory(prefix="bmx-bench-fairness-") as directory:
            previews(Path(directory))
        return
    with tempfile.TemporaryDirectory(prefix="bmx-bench-fairness-") as directory:
        scratch = Path(directory)
        (scratch / "files").mkdir()
        flood = [
            _expensive_image(scratch / "files" / f"flood-{n}.jpg")
            for n in range(FLOOD_FILES_PER_TEST)
        ]
        small = _small_image(scratch / "files" / "small.png")
        flood_mb = sum(path.stat().st_size for path in flood) * FLOOD_TESTS / 1_000_000
        cap = Settings(_env_file=None).scan_concurrency_per_account
        print(
            f"flood: {FLOOD_TESTS * len(flood)} 20-megapixel JPEGs ({flood_mb:.0f} MB) from one "
            f"account; victim: one {small.stat().st_size / 1000:.0f} kB PNG, {ROUNDS} rounds; "
            f"{cap} scans per account at once"
        )
        runs: list[tuple[str, Callable[[], AbstractContextManager[JobContext]]]] = [
            ("embedded (in-process queue)", lambda: _embedded(scratch, cap)),
            ("PostgreSQL+Redis (1 worker)", lambda: production_stack(scratch)),
        ]
        for label, stack in runs:
            with stack() as ctx:
                _report(f"time-to-public, {label}", _measure(ctx, flood, small, label[:3]))
        with _embedded(scratch, cap=1000) as ctx:
            victim, flooder = _account(ctx, "victim-nocap"), _account(ctx, "flooder-nocap")
            unloaded = _victim_round(ctx, victim, small)
            for _ in range(FLOOD_TESTS):
                _upload(ctx, flooder, flood)
            loaded = _victim_round(ctx, victim, small, timeout=600)
            _stop_flood(ctx, flooder)
            # The in-memory broker still holds the discarded flood's messages; dropping them
            # when it stops is expected, and not worth a screen of warnings.
            logging.disable(logging.ERROR)
            print(
                f"{'for contrast, embedded, no cap':34s} unloaded {unloaded:5.2f} s  loaded "
                f"{loaded:5.2f} s  ratio {loaded / unloaded:4.2f} (one round)"
            )
            logging.disable(logging.NOTSET)
        previews(scratch)


if __name__ == "__main__":
    main()
