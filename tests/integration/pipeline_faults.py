"""Faults for the pipeline, imported only by the worker subprocesses of durability tests.

``BENCHMAX_TEST_SCAN_FAULT`` chooses: ``crash`` makes every scan raise (with content in the
message, which must never reach a row or a log); ``slow`` notes each scan's start in
``scans.log`` under ``BENCHMAX_TEST_DURABILITY_DIR`` and sleeps first, so a test can kill the
worker mid-scan. Unset, the worker is untouched.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from benchmax.services import pipeline
from benchmax.services.scan_process import scan_in_child

FAULT_ENV = "BENCHMAX_TEST_SCAN_FAULT"
DIR_ENV = "BENCHMAX_TEST_DURABILITY_DIR"
CANARY = "pipeline-fault-canary"
_real_scan = scan_in_child


def scans_log(directory: Path) -> Path:
    return directory / "scans.log"


def _crash(*_args: Any, **_options: Any) -> Any:
    raise RuntimeError(CANARY)


def _slow(*args: Any, **options: Any) -> Any:
    with scans_log(Path(os.environ[DIR_ENV])).open("a") as log:
        log.write("scan\n")
    time.sleep(3)
    return _real_scan(*args, **options)


_fault = os.environ.get(FAULT_ENV, "")
if _fault == "crash":
    pipeline.scan_in_child = _crash  # type: ignore[attr-defined]
elif _fault == "slow":
    pipeline.scan_in_child = _slow  # type: ignore[attr-defined]
