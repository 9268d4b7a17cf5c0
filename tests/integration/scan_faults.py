"""Scanners that misbehave on cue, run by ``scan_process`` in its child processes.

They live in a module of their own because the child imports a scanner by name.
"""

from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path

from benchmax.services.safety import SafetyLimits, ScanResult

CANARY = "scan-fault-canary"


def hang(_path: Path, _name: str, _limits: SafetyLimits) -> ScanResult:
    time.sleep(600)
    raise AssertionError("a hanging scan was not killed")


def die(_path: Path, _name: str, _limits: SafetyLimits) -> ScanResult:
    os.kill(os.getpid(), signal.SIGSEGV)
    raise AssertionError("a crashing scan survived its own signal")


def balloon(_path: Path, _name: str, _limits: SafetyLimits) -> ScanResult:
    hoard = [bytearray(64 * 1024 * 1024) for _ in range(64)]  # 4 GiB
    raise AssertionError(f"allocated {len(hoard)} blocks past the memory limit")


def fail_with_content(_path: Path, _name: str, _limits: SafetyLimits) -> ScanResult:
    raise ValueError(CANARY)


def report_environment(path: Path, name: str, _limits: SafetyLimits) -> ScanResult:
    return ScanResult(verdict="approved", safe_name=name, metadata={"env": dict(os.environ)})


def spin(_path: Path, _name: str, _limits: SafetyLimits) -> ScanResult:
    while True:
        pass


def spin_in_c(_path: Path, _name: str, _limits: SafetyLimits) -> ScanResult:
    """Catastrophic backtracking: minutes inside one C call, where no Python signal handler
    can run, like a decoder stuck on a hostile file."""
    re.fullmatch(r"(a|aa)+b", "a" * 200)
    raise AssertionError("the regular expression finished")
