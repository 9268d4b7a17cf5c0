"""Running one safety scan in a child process, with a deadline and a memory ceiling.

The scanner feeds untrusted bytes to image decoders and inflaters written in C. In the job's
own process a decoder that hangs would hold the worker until its lease ran out, one that
crashes or balloons would take every other job down with it, and one that is exploited
would sit next to the database connection and the auth secrets. So each scan runs in a
fresh interpreter (``scan_child``) that inherits only ``PASSED_ENVIRONMENT``, never a secret.
Two budgets, two outcomes:

- CPU time (``cpu_seconds``) and memory (``memory_limit_bytes`` of address space) measure
  what the *file* costs, whatever else the machine is doing; a scan past either is blocked
  as "too expensive to check" (``scan_too_expensive``), never retried.
- Wall-clock time (``timeout_seconds``, longer than the CPU budget) also grows with load: a
  scan past it is killed and reported as ``scan_timeout`` (unless it had used its CPU budget
  by then), and one that dies otherwise as ``scanner_died``. Each is a ``JobError``, so the
  job runner retries with backoff and, in the end, shows "Processing failed" with a Retry
  button.

So two cores shared by many scans slow a scan down without ever blocking its file, while a
file that needs more CPU than allowed is blocked however idle the machine is.

A fresh interpreter costs about a tenth of a second per file; forking the worker would be
cheaper but would hand the child a copy of every secret and open connection it holds.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from benchmax.services import scan_child
from benchmax.services.jobs import JobError
from benchmax.services.safety import SafetyLimits, ScanResult, too_expensive
from benchmax.settings import Settings

Scanner = Callable[[Path, str, SafetyLimits], ScanResult]
SCAN_TIMEOUT = "scan_timeout"
SCANNER_DIED = "scanner_died"
# -E and -s: no PYTHON* variables and no user site-packages can change what the child runs.
_COMMAND = (sys.executable, "-E", "-s", "-m", "benchmax.services.scan_child")
# All the child inherits: what an interpreter may need to start, and never a secret.
PASSED_ENVIRONMENT = ("PATH", "LD_LIBRARY_PATH", "LANG", "LC_ALL", "LC_CTYPE")
# How long past its CPU budget a child may run before the kernel kills it outright: the
# budget itself is a catchable signal, which a decoder inside one long C call never sees.
# (If the deadline comes first, the CPU the child used still decides the verdict.)
SCAN_CPU_GRACE_SECONDS = 5


def scan_limits(settings: Settings) -> SafetyLimits:
    """The scanner's limits, with the ones an operator may tune taken from settings."""
    return SafetyLimits(
        animation_max_frames=settings.scan_max_frames,
        animation_max_total_pixels=settings.scan_max_total_frame_pixels,
    )


def scan_in_child(
    path: Path,
    name: str,
    limits: SafetyLimits,
    *,
    timeout_seconds: float,
    memory_limit_bytes: int,
    cpu_seconds: int | None = None,
    scanner: Scanner | None = None,
) -> ScanResult:
    """``scan_file(path, name, limits)`` in a child; raises ``JobError`` if it fails.

    ``cpu_seconds`` defaults to the whole deadline (then only memory can block a file).

    ``scanner`` replaces ``scan_file`` (tests pass ones that hang or crash on cue); the child
    imports it by name, so it must be a module-level function.
    """
    target = scan_child.DEFAULT_SCANNER
    if scanner is not None:
        target = f"{scanner.__module__}:{scanner.__qualname__}"
    cpu_budget = cpu_seconds or math.ceil(timeout_seconds) + 1
    message = scan_child.request(
        path,
        name,
        limits,
        memory_limit_bytes=memory_limit_bytes,
        cpu_limit_seconds=cpu_budget,
        cpu_grace_seconds=SCAN_CPU_GRACE_SECONDS,
        scanner=target,
    )
    reply, cpu_used, timed_out = _run_child(message, timeout_seconds)
    if cpu_used >= cpu_budget:
        # Killed by its hard CPU limit inside a long C call, or ended by its own handler:
        # either way the file needed more CPU than it may have.
        return too_expensive(name, limits)
    if timed_out:
        raise JobError(SCAN_TIMEOUT)
    try:
        outcome = scan_child.read_reply(reply, path)
    except (ValueError, KeyError, TypeError):
        raise JobError(SCANNER_DIED) from None
    if isinstance(outcome, str):
        raise JobError(outcome)
    return outcome


def _run_child(message: bytes, timeout_seconds: float) -> tuple[bytes, float, bool]:
    """Run one child: ``(its reply, the CPU seconds it used, whether it hit the deadline)``.

    The child is reaped with ``wait4`` rather than by ``Popen`` so that its own CPU time is
    known exactly (``RUSAGE_CHILDREN`` would mix in other scans running in other threads).
    """
    with subprocess.Popen(
        _COMMAND,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={name: os.environ[name] for name in PASSED_ENVIRONMENT if name in os.environ},
    ) as child:
        stdin, stdout = child.stdin, child.stdout
        assert stdin is not None
        assert stdout is not None
        output: list[bytes] = []
        reader = threading.Thread(target=lambda: output.append(stdout.read()))
        reader.start()
        try:
            stdin.write(message)
            stdin.close()
        except BrokenPipeError:
            pass  # it died before reading; its exit says why
        reader.join(timeout_seconds)
        timed_out = reader.is_alive()
        if timed_out:
            child.kill()
            reader.join()
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
    return b"".join(output), usage.ru_utime + usage.ru_stime, timed_out
