"""The processes ``benchmax dev`` and ``benchmax stack`` start, and how they stop.

Every child runs in a process group of its own (a new session), so a signal meant for one
child reaches that child and everything it started, and a terminal's Ctrl+C reaches only the
supervising command, which then stops its children in order instead of all of them at once.

Stopping (SIGTERM or SIGINT to the command, or ``stop()``): each group gets SIGTERM, the
newest tier first (the application before the Redis and S3 it still needs while it drains);
a tier has the grace period (``BENCHMAX_SHUTDOWN_GRACE_SECONDS``, which is also how long a
worker lets its jobs finish before releasing their leases) plus ``KILL_MARGIN_SECONDS``, then
whatever is left of it — group members and every descendant seen while it ran, including
those that made sessions of their own, like the preview sandbox — gets SIGKILL. A second
signal during the stop skips the rest of the wait. The exit status says which way it went.

If the supervisor itself is killed (SIGKILL cannot be handled), each child gets SIGTERM from
the kernel (``PR_SET_PDEATHSIG``) and stops as it would have been stopped.

``watch()`` is the stack's supervision: a child that exits is logged and restarted after a
backoff that doubles with each quick failure, instead of taking the whole topology down.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import NoReturn

import psutil

# Linux's prctl, loaded before any fork: a child asks for SIGTERM when its supervisor dies,
# so even a SIGKILLed `benchmax stack` leaves nothing behind (its children stop themselves).
_PR_SET_PDEATHSIG = 1
_prctl: Callable[..., int] | None
try:
    _prctl = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):  # not Linux: a supervisor that is killed leaves orphans
    _prctl = None


def _stop_with_parent() -> None:
    """Runs in the child between fork and exec (nothing but one system call)."""
    if _prctl is not None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


EXIT_STOPPED = 0
"""Stopped on request (SIGTERM, SIGINT) and every child exited within the grace period."""
EXIT_FAILED = 1
"""Did not start, or (``benchmax dev``) a child exited on its own."""
EXIT_KILLED = 3
"""Stopped on request, but something outlived the grace period and was SIGKILLed."""

KILL_MARGIN_SECONDS = 3.0
"""Past the grace period, for a worker to notice the signal between two reads of the
queue (up to a second), release its leases and exit."""
INFRA_STOP_SECONDS = 1.5
"""How long the last tier (the stack's Redis and S3, which hold no in-flight work) gets."""
BACKOFF_FIRST_SECONDS = 1.0
BACKOFF_MAX_SECONDS = 30.0
STABLE_SECONDS = 60.0
"""A child up this long has recovered: its next exit is restarted after the first backoff."""


STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
"""What process managers send (SIGTERM), Ctrl+C (SIGINT), a closed terminal (SIGHUP)."""


class StopRequested(Exception):  # noqa: N818 - a request, not an error
    """Raised in the main thread by the first of ``STOP_SIGNALS``."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def describe_exit(code: int) -> str:
    return f"signal {signal.Signals(-code).name}" if code < 0 else f"status {code}"


@dataclass
class Child:
    name: str
    command: list[str]
    process: subprocess.Popen[bytes]
    log: Path | None
    tier: int
    restart: bool
    started_at: float = field(default_factory=time.monotonic)
    failures: int = 0
    restarts: int = 0
    restart_at: float | None = None
    seen: dict[int, psutil.Process] = field(default_factory=dict)


def _live_groups() -> dict[int, list[psutil.Process]]:
    """Every live (not zombie) process by its process group."""
    groups: dict[int, list[psutil.Process]] = {}
    for proc in psutil.process_iter(["status"]):
        with suppress(psutil.Error, OSError):
            if proc.info["status"] != psutil.STATUS_ZOMBIE:
                groups.setdefault(os.getpgid(proc.pid), []).append(proc)
    return groups


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


class Supervisor:
    """Named children in process groups of their own; start, watch, restart and stop them."""

    def __init__(
        self,
        grace_seconds: float,
        *,
        cwd: Path,
        env: Mapping[str, str],
        say: Callable[[str], None] | None = None,
    ) -> None:
        self.grace = grace_seconds
        self.cwd = cwd
        self.env = dict(env)
        self.say = say or (lambda line: print(line, file=sys.stderr, flush=True))
        self.children: dict[str, Child] = {}
        self.stopping = False
        self._hurry = False
        self._spawning: list[str] | None = None

    # -- one child -----------------------------------------------------------------------

    def spawn(
        self,
        name: str,
        command: list[str],
        *,
        log: Path | None = None,
        tier: int = 1,
        restart: bool = True,
    ) -> subprocess.Popen[bytes]:
        """Start ``command`` as ``name`` in a new session, its output appended to ``log``
        (inherited when None)."""
        out = None
        if log is not None:
            log.parent.mkdir(parents=True, exist_ok=True)
            out = open(log, "ab")  # noqa: SIM115 - the child owns it
        self._spawning = command
        try:
            process = subprocess.Popen(
                command, cwd=self.cwd, env=self.env, stdout=out,
                stderr=subprocess.STDOUT if out else None, start_new_session=True,
                preexec_fn=_stop_with_parent,  # one system call between fork and exec
            )  # fmt: skip
        finally:
            if out is not None:
                out.close()
        previous = self.children.get(name)
        self.children[name] = Child(name, command, process, log, tier, restart)
        self._spawning = None
        if previous is not None:
            self.children[name].failures = previous.failures
            self.children[name].restarts = previous.restarts
        return process

    def respawn(self, name: str) -> subprocess.Popen[bytes]:
        child = self.children[name]
        return self.spawn(
            name, child.command, log=child.log, tier=child.tier, restart=child.restart
        )

    def signal_group(self, name: str, sig: int) -> None:
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(self.children[name].process.pid, sig)

    def kill(self, name: str, sig: int = signal.SIGKILL, timeout: float = 30) -> None:
        """Signal a child's whole group and reap it."""
        process = self.children[name].process
        if process.poll() is None:
            self.signal_group(name, sig)
            process.wait(timeout=timeout)

    # -- watching ------------------------------------------------------------------------

    def _note_descendants(self) -> None:
        """Remember every descendant now, so one that leaves the group (a new session) or is
        orphaned by its parent's death can still be found at the stop."""
        for child in self.children.values():
            with suppress(psutil.Error):
                for proc in psutil.Process(child.process.pid).children(recursive=True):
                    child.seen.setdefault(proc.pid, proc)

    def watch(self) -> None:
        """Restart children that exited (those spawned with ``restart``), with backoff."""
        now = time.monotonic()
        self._note_descendants()
        for child in list(self.children.values()):
            code = child.process.poll()
            if code is None:
                if now - child.started_at > STABLE_SECONDS:
                    child.failures = 0
                continue
            if not child.restart:
                continue
            if child.restart_at is None:
                self._kill_leftovers(child)
                delay = min(BACKOFF_MAX_SECONDS, BACKOFF_FIRST_SECONDS * 2**child.failures)
                child.failures += 1
                child.restart_at = now + delay
                self.say(
                    f"{_stamp()} {child.name} (pid {child.process.pid}) exited with "
                    f"{describe_exit(code)}; restarting in {delay:.0f}s"
                )
            elif now >= child.restart_at:
                process = self.respawn(child.name)
                self.children[child.name].restarts += 1
                self.say(
                    f"{_stamp()} {child.name} restarted (pid {process.pid}, "
                    f"restart {self.children[child.name].restarts})"
                )

    def exited(self) -> list[str]:
        """Children that have exited and are not going to be restarted."""
        return [n for n, c in self.children.items() if c.process.poll() is not None]

    # -- stopping ------------------------------------------------------------------------

    def _kill_leftovers(self, child: Child) -> bool:
        """SIGKILL whatever of ``child`` still runs: its group and every descendant seen."""
        left = {p.pid: p for p in _live_groups().get(child.process.pid, [])}
        left.update({pid: p for pid, p in child.seen.items() if _alive(p)})
        left.pop(os.getpid(), None)
        for proc in left.values():
            with suppress(psutil.Error):
                proc.kill()
        if child.process.poll() is None:
            with suppress(ProcessLookupError):
                child.process.kill()
            child.process.wait()
        child.seen.clear()
        return bool(left)

    def _stop_tier(self, children: list[Child], wait: float) -> bool:
        for child in reversed(children):
            self.signal_group(child.name, signal.SIGTERM)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and not self._hurry:
            groups = _live_groups()
            if not any(c.process.poll() is None or c.process.pid in groups for c in children):
                break
            time.sleep(0.2)
        forced = False
        for child in children:
            if self._kill_leftovers(child):
                self.say(f"{_stamp()} {child.name}: SIGKILLed what outlived the grace period")
                forced = True
        return forced

    def _kill_stray(self) -> None:
        """A child whose ``spawn`` the stop signal interrupted (started, never recorded) has
        served nothing yet: it and its group go at once."""
        command, self._spawning = self._spawning, None
        if command is None:
            return
        known = {c.process.pid for c in self.children.values()}
        with suppress(psutil.Error):
            for proc in psutil.Process().children():
                with suppress(ProcessLookupError, PermissionError, psutil.Error):
                    if proc.pid not in known and proc.cmdline() == command:
                        os.killpg(proc.pid, signal.SIGKILL)

    def stop(self) -> int:
        """Stop every child, newest tier first; ``EXIT_STOPPED`` or ``EXIT_KILLED``."""
        self.stopping = True
        self._kill_stray()
        self._note_descendants()
        tiers = sorted({c.tier for c in self.children.values()}, reverse=True)
        forced = False
        for index, tier in enumerate(tiers):
            members = [c for c in self.children.values() if c.tier == tier]
            last = index == len(tiers) - 1 and len(tiers) > 1
            wait = INFRA_STOP_SECONDS if last else self.grace + KILL_MARGIN_SECONDS
            forced = self._stop_tier(members, wait) or forced
        return EXIT_KILLED if forced else EXIT_STOPPED

    @contextmanager
    def stop_signals(self) -> Iterator[None]:
        """While inside: the first of ``STOP_SIGNALS`` raises ``StopRequested`` in the main
        thread; one during the stop itself only cuts the wait short."""

        def handler(signum: int, _frame: FrameType | None) -> None:
            if self.stopping:
                self._hurry = True
                return
            self.stopping = True
            raise StopRequested(signum)

        previous = {sig: signal.signal(sig, handler) for sig in STOP_SIGNALS}
        try:
            yield
        finally:
            for sig, old in previous.items():
                signal.signal(sig, old)


def exit_now(status: int) -> NoReturn:
    """End the supervising command with ``status`` once its children are gone.

    Nothing is left to clean up then; finalising the interpreter only frees memory, which on
    a loaded machine took seconds during which a process manager still saw it running.
    """
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def _stamp() -> str:
    return time.strftime("%H:%M:%S")
