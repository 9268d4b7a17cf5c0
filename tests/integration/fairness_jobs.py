"""Test-only job kinds for the fairness tests, imported by in-process and worker queues.

``HOG`` stands for an expensive scan: it notes its start in ``hog.log`` and holds its worker
until the test creates the ``gate`` file. ``QUICK`` is another account's small scan: it
notes that it ran in ``quick.log``. Both find their directory in ``DIR_ENV``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from benchmax.services.jobs import JobContext, job_handler

HOG = "test.fairness.hog"
QUICK = "test.fairness.quick"
DIR_ENV = "BENCHMAX_TEST_DURABILITY_DIR"
GATE_TIMEOUT_SECONDS = 60


def directory() -> Path:
    return Path(os.environ[DIR_ENV])


def lines(name: str) -> list[str]:
    path = directory() / name
    return path.read_text().splitlines() if path.exists() else []


def _note(name: str, subject_id: str) -> None:
    with (directory() / name).open("a") as log:
        log.write(subject_id + "\n")


@job_handler(HOG)
def hog(ctx: JobContext, subject_id: str) -> None:
    _note("hog.log", subject_id)
    deadline = time.monotonic() + GATE_TIMEOUT_SECONDS
    while not (directory() / "gate").exists() and time.monotonic() < deadline:
        time.sleep(0.05)


@job_handler(QUICK)
def quick(ctx: JobContext, subject_id: str) -> None:
    _note("quick.log", subject_id)
