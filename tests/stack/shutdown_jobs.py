"""A test-only job kind for the shutdown tests, imported by the processes they start.

``SLEEPER``'s subject is ``name:seconds``: it notes ``start name`` in ``runs.log`` (under
``BENCHMAX_TEST_SHUTDOWN_DIR``), sleeps, then notes ``end name``; so a test sees whether a
job in flight at the stop finished, and how many times it was started.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from benchmax.services.jobs import JobContext, job_handler

SLEEPER = "test.shutdown.sleep"
DIR_ENV = "BENCHMAX_TEST_SHUTDOWN_DIR"


def runs(directory: Path) -> list[str]:
    log = directory / "runs.log"
    return log.read_text().splitlines() if log.exists() else []


def _note(line: str) -> None:
    with (Path(os.environ[DIR_ENV]) / "runs.log").open("a") as log:
        log.write(line + "\n")


@job_handler(SLEEPER)
def sleeper(_ctx: JobContext, subject_id: str) -> None:
    name, _, seconds = subject_id.partition(":")
    _note(f"start {name}")
    time.sleep(float(seconds))
    _note(f"end {name}")
