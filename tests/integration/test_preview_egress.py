"""No egress from the local sandbox, proved against a listener we own.

A network namespace made for the test holds a TCP listener on a non-loopback address,
reachable from the host over a veth pair (the control: the host connects). The evaluator
inside bubblewrap probes that address first thing and must not reach it; run without the
sandbox, the same probe reaches it and the adapter fails closed.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmax.adapters.sandbox import EVALUATOR_DIR, SandboxError, read_outputs
from benchmax.adapters.sandbox.local import LocalSandbox
from tests.support.preview_sites import NO_INDEX, zip_of

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.sandbox,
    pytest.mark.skipif(
        os.geteuid() != 0 or shutil.which("ip") is None, reason="needs root and iproute2"
    ),
]

HOST_ADDRESS = "10.213.77.1"
LISTENER_ADDRESS = "10.213.77.2"
PORT = 18077

LISTENER = f"""
import os, socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("{LISTENER_ADDRESS}", {PORT})); s.listen(8)
print("ready", flush=True)
accepted = 0
while True:
    c, _ = s.accept(); accepted += 1; c.close()
    # Written aside and renamed, so a reader never sees the file empty between open and write.
    open(sys.argv[1] + ".new", "w").write(str(accepted))
    os.replace(sys.argv[1] + ".new", sys.argv[1])
"""


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


@pytest.fixture
def listener(tmp_path: Path) -> Iterator[Path]:
    name = f"bmxpv{os.getpid()}"
    host, peer = f"{name}h"[:15], f"{name}p"[:15]
    counter = tmp_path / "accepted"
    _ip("netns", "add", name)
    try:
        _ip("link", "add", host, "type", "veth", "peer", "name", peer)
        _ip("link", "set", peer, "netns", name)
        _ip("addr", "add", f"{HOST_ADDRESS}/30", "dev", host)
        _ip("link", "set", host, "up")
        _ip("-n", name, "addr", "add", f"{LISTENER_ADDRESS}/30", "dev", peer)
        _ip("-n", name, "link", "set", peer, "up")
        _ip("-n", name, "link", "set", "lo", "up")
        process = subprocess.Popen(
            ["ip", "netns", "exec", name, sys.executable, "-c", LISTENER, str(counter)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "ready"
        yield counter
        process.kill()
        process.wait()
    finally:
        subprocess.run(["ip", "link", "del", host], capture_output=True)
        subprocess.run(["ip", "netns", "del", name], capture_output=True)


def _accepted(counter: Path) -> int:
    """Connections the listener accepted so far (it rewrites the count after each)."""
    return int(counter.read_text()) if counter.exists() else 0


def test_the_sandbox_cannot_reach_a_listener_the_host_can(listener: Path, tmp_path: Path) -> None:
    with socket.create_connection((LISTENER_ADDRESS, PORT), timeout=3):
        pass  # the control: from the host the listener is reachable
    deadline = time.monotonic() + 5
    while _accepted(listener) < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _accepted(listener) == 1

    site = tmp_path / "site.zip"
    site.write_bytes(zip_of(NO_INDEX))
    probes = [f"{LISTENER_ADDRESS}:{PORT}"]
    output = LocalSandbox(probes=probes).evaluate(site, 30)
    # The probe failed, so the evaluator went on (and found no root index.html).
    assert output.result["status"] == "not_applicable"
    assert output.result["reason"] == "no_root_index"
    assert _accepted(listener) == 1  # still only the control


def test_without_the_sandbox_the_probe_succeeds_and_the_adapter_fails_closed(
    listener: Path, tmp_path: Path
) -> None:
    site = tmp_path / "site.zip"
    site.write_bytes(zip_of(NO_INDEX))
    out = tmp_path / "out"
    script = str(EVALUATOR_DIR / "evaluate.py")
    probe = f"{LISTENER_ADDRESS}:{PORT}"
    command = [sys.executable, script, "--zip", str(site), "--out", str(out), "--probe", probe]
    subprocess.run(command, check=True, timeout=60)
    with pytest.raises(SandboxError) as refused:
        read_outputs(out)
    assert refused.value.code == "egress_open"
