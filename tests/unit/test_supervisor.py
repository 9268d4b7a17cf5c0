"""The supervisor with real child processes: groups, grace, SIGKILL of what is left (escaped
grandchildren included), restarts with backoff, and the signal that asks it to stop."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from benchmax.runtime.supervisor import (
    EXIT_KILLED,
    EXIT_STOPPED,
    KILL_MARGIN_SECONDS,
    StopRequested,
    Supervisor,
)

# Ignores SIGTERM, and starts a grandchild in a session of its own (as the preview sandbox
# does), which leaves the process group a group signal reaches.
STUBBORN = """
import os, signal, subprocess, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
escaped = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"],
                           start_new_session=True)
open(sys.argv[1], "w").write(str(escaped.pid))
time.sleep(300)
"""
POLITE = "import time; time.sleep(300)"


@pytest.fixture
def lines() -> list[str]:
    return []


@pytest.fixture
def supervisor(tmp_path: Path, lines: list[str]) -> Iterator[Supervisor]:
    sup = Supervisor(1.0, cwd=tmp_path, env=os.environ, say=lines.append)
    yield sup
    sup.stop()


def _wait_for(path: Path, timeout: float = 10) -> str:
    deadline = time.monotonic() + timeout
    while not (path.exists() and path.read_text()):
        assert time.monotonic() < deadline, f"{path} never written"
        time.sleep(0.05)
    return path.read_text()


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_each_child_gets_a_process_group_of_its_own(supervisor: Supervisor) -> None:
    process = supervisor.spawn("polite", [sys.executable, "-c", POLITE])
    assert os.getpgid(process.pid) == process.pid != os.getpgid(0)


def test_stop_kills_what_outlives_the_grace_period_even_outside_its_group(
    supervisor: Supervisor, tmp_path: Path
) -> None:
    marker = tmp_path / "escaped.pid"
    stubborn = supervisor.spawn("stubborn", [sys.executable, "-c", STUBBORN, str(marker)])
    polite = supervisor.spawn("polite", [sys.executable, "-c", POLITE])
    escaped = int(_wait_for(marker))
    assert os.getpgid(escaped) != stubborn.pid
    supervisor.watch()  # notes the descendants, as the stack's loop does every half second

    started = time.monotonic()
    assert supervisor.stop() == EXIT_KILLED
    took = time.monotonic() - started
    # The grace period, the margin, then SIGKILL (and a loaded machine's slack).
    assert 1.0 + KILL_MARGIN_SECONDS <= took < 1.0 + KILL_MARGIN_SECONDS + 3, took
    assert polite.returncode == -signal.SIGTERM
    assert stubborn.returncode == -signal.SIGKILL
    assert _gone(escaped)


def test_children_that_stop_on_sigterm_end_it_at_once_with_a_clean_status(
    supervisor: Supervisor,
) -> None:
    for name in ("one", "two"):
        supervisor.spawn(name, [sys.executable, "-c", POLITE])
    started = time.monotonic()
    assert supervisor.stop() == EXIT_STOPPED
    assert time.monotonic() - started < 1.0


def test_a_child_that_dies_is_restarted_with_a_backoff_that_doubles(
    supervisor: Supervisor, lines: list[str]
) -> None:
    first = supervisor.spawn("worker", [sys.executable, "-c", POLITE])
    supervisor.kill("worker")
    supervisor.watch()
    assert "worker" in lines[-1]
    assert "signal SIGKILL; restarting in 1s" in lines[-1]
    time.sleep(1.1)
    supervisor.watch()
    second = supervisor.children["worker"].process
    assert second.pid != first.pid
    assert second.poll() is None
    assert "restarted" in lines[-1]

    supervisor.kill("worker")
    supervisor.watch()
    assert "restarting in 2s" in lines[-1]  # a quick second failure waits longer
    assert supervisor.exited() == ["worker"]


def _signal_self_and_wait(sig: int) -> None:
    os.kill(os.getpid(), sig)
    time.sleep(5)


@pytest.mark.parametrize("first", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_the_first_signal_asks_to_stop_and_a_second_only_cuts_the_wait_short(
    supervisor: Supervisor, first: signal.Signals
) -> None:
    with supervisor.stop_signals():
        with pytest.raises(StopRequested) as raised:
            _signal_self_and_wait(first)
        assert raised.value.signum == first
        os.kill(os.getpid(), signal.SIGINT)  # while stopping: no second exception
        time.sleep(0.1)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


SUPERVISING = """
import os, sys, time
from pathlib import Path
from benchmax.runtime.supervisor import Supervisor
sup = Supervisor(1.0, cwd=Path("."), env=os.environ)
child = sup.spawn("child", [sys.executable, "-c", "import time; time.sleep(300)"])
print(child.pid, flush=True)
time.sleep(300)
"""


def test_children_stop_when_their_supervisor_is_killed_outright(tmp_path: Path) -> None:
    """SIGKILL cannot be handled: the kernel sends each child SIGTERM instead."""
    import subprocess

    from tests.conftest import ROOT

    parent = subprocess.Popen(
        [sys.executable, "-c", SUPERVISING], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    assert not _gone(child)
    parent.kill()
    parent.wait(10)
    deadline = time.monotonic() + 10
    while not _gone(child):
        assert time.monotonic() < deadline, "the child outlived its supervisor"
        time.sleep(0.05)
