"""Watching the processes a BenchMax command started: the whole tree, their groups, ports."""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from contextlib import suppress
from pathlib import Path

import psutil

from tests.conftest import ROOT


def port_is_free(port: int) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _ephemeral_start() -> int:
    """The lowest port the kernel hands out for outgoing connections and for ``bind(0)``."""
    with suppress(OSError, ValueError, IndexError):
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    return 32768


def free_port_block(offsets: Iterable[int]) -> int:
    """A base port such that base+offset is free for every offset: scanned upwards from
    ``BENCHMAX_SHUTDOWN_TEST_PORT`` if set, else picked at random below the ephemeral range.

    Not from the ephemeral range: a stack takes seconds to bind its ports, and meanwhile every
    outgoing connection on the machine (its own to PostgreSQL and Redis among them) may be
    given one of them."""
    wanted = sorted(set(offsets))
    start = os.environ.get("BENCHMAX_SHUTDOWN_TEST_PORT")
    ceiling = _ephemeral_start() - wanted[-1] - 1
    for attempt in range(200):
        if start:
            base = int(start) + attempt * (wanted[-1] + 1)
        else:
            base = random.randrange(20_000, ceiling)
        if all(port_is_free(base + offset) for offset in wanted):
            return base
    raise RuntimeError("no free block of ports")


class Tree:
    """Every process under ``root`` seen so far, and every member of their groups."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.seen: dict[int, psutil.Process] = {}

    def note(self) -> int:
        """Add what runs under the root now; how many processes have been seen."""
        try:
            found = psutil.Process(self.root).children(recursive=True)
        except psutil.NoSuchProcess:
            return len(self.seen)
        groups = set()
        for proc in found:
            self.seen.setdefault(proc.pid, proc)
            try:
                groups.add(os.getpgid(proc.pid))
            except ProcessLookupError:
                continue
        for proc in psutil.process_iter():
            try:
                if os.getpgid(proc.pid) in groups:
                    self.seen.setdefault(proc.pid, proc)
            except (ProcessLookupError, psutil.Error):
                continue
        return len(self.seen)

    def alive(self) -> list[str]:
        left = []
        for proc in self.seen.values():
            try:
                if proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE:
                    left.append(f"{proc.pid} {' '.join(proc.cmdline())[:120]}")
            except psutil.Error:
                continue
        return left


def stop_all(process: subprocess.Popen[bytes], tree: Tree, timeout: float) -> None:
    """After a failed test: ask the command to stop, then SIGKILL everything it started."""
    tree.note()
    if process.poll() is None:
        os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    for proc in tree.seen.values():
        with suppress(psutil.Error):
            proc.kill()


def wait_until_gone(tree: Tree, ports: Iterable[int], deadline: float) -> None:
    """Every process of ``tree`` ended and every port free by ``deadline``; else fail."""
    ports = list(ports)
    while True:
        left, busy = tree.alive(), [p for p in ports if not port_is_free(p)]
        if not left and not busy:
            return
        assert time.monotonic() < deadline, f"still running: {left}; ports held: {busy}"
        time.sleep(0.1)


def start_command(args: list[str], env: Mapping[str, str], log: Path) -> subprocess.Popen[bytes]:
    """``python -m benchmax.cli ARGS`` in a session of its own, as a process manager would."""
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "benchmax.cli", *args],
            cwd=ROOT, env=dict(env), stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip


def wait_for_line(
    log: Path, text: str, process: subprocess.Popen[bytes], timeout: float, after: int = 0
) -> int:
    """Wait until ``text`` appears in ``log`` past byte ``after``; the byte after it."""
    deadline = time.monotonic() + timeout
    while True:
        content = log.read_bytes()
        found = content.find(text.encode(), after)
        if found >= 0:
            return found + len(text)
        assert process.poll() is None, f"exited {process.returncode}:\n{content.decode()[-3000:]}"
        assert time.monotonic() < deadline, f"no {text!r} in {timeout:.0f}s:\n{content[-3000:]!r}"
        time.sleep(0.2)
