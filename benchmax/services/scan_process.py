"""Running one safety scan in a child process, with a deadline and a memory ceiling.

The scanner feeds untrusted bytes to image decoders and inflaters written in C. In the job's
own process a decoder that hangs would hold the worker until its lease ran out, one that
crashes or balloons would take every other job down with it, and one that is exploited
would sit next to the database connection and the auth secrets. So each scan runs in a
fresh interpreter (``scan_child``) that inherits only ``PASSED_ENVIRONMENT``, never a secret.
Past ``timeout_seconds`` it is killed and reported as ``scan_timeout``; if it dies it reports
``scanner_died``; past ``memory_limit_bytes`` of address space it fails with ``MemoryError``.
Each is a ``JobError``, so the job runner retries with backoff and, in the end, shows
"Processing failed" with a Retry button.

A fresh interpreter costs about a tenth of a second per file; forking the worker would be
cheaper but would hand the child a copy of every secret and open connection it holds.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from benchmax.services import scan_child
from benchmax.services.jobs import JobError
from benchmax.services.safety import SafetyLimits, ScanResult

Scanner = Callable[[Path, str, SafetyLimits], ScanResult]
SCAN_TIMEOUT = "scan_timeout"
SCANNER_DIED = "scanner_died"
# -E and -s: no PYTHON* variables and no user site-packages can change what the child runs.
_COMMAND = (sys.executable, "-E", "-s", "-m", "benchmax.services.scan_child")
# All the child inherits: what an interpreter may need to start, and never a secret.
PASSED_ENVIRONMENT = ("PATH", "LD_LIBRARY_PATH", "LANG", "LC_ALL", "LC_CTYPE")


def scan_in_child(
    path: Path,
    name: str,
    limits: SafetyLimits,
    *,
    timeout_seconds: float,
    memory_limit_bytes: int,
    scanner: Scanner | None = None,
) -> ScanResult:
    """``scan_file(path, name, limits)`` in a child; raises ``JobError`` if it fails.

    ``scanner`` replaces ``scan_file`` (tests pass ones that hang or crash on cue); the child
    imports it by name, so it must be a module-level function.
    """
    target = scan_child.DEFAULT_SCANNER
    if scanner is not None:
        target = f"{scanner.__module__}:{scanner.__qualname__}"
    message = scan_child.request(
        path,
        name,
        limits,
        memory_limit_bytes=memory_limit_bytes,
        cpu_limit_seconds=math.ceil(timeout_seconds) + 1,
        scanner=target,
    )
    with subprocess.Popen(
        _COMMAND,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={name: os.environ[name] for name in PASSED_ENVIRONMENT if name in os.environ},
    ) as child:
        try:
            reply, _ = child.communicate(message, timeout=timeout_seconds)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            raise JobError(SCAN_TIMEOUT) from None
    try:
        outcome = scan_child.read_reply(reply, path)
    except (ValueError, KeyError, TypeError):
        raise JobError(SCANNER_DIED) from None
    if isinstance(outcome, str):
        raise JobError(outcome)
    return outcome
