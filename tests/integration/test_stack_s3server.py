"""The stack's local S3 server keeps what it was told it stored across a SIGKILL and restart,
through BenchMax's own storage adapter: plain and multipart uploads, copies and deletes."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from benchmax.adapters.storage.s3 import PART_SIZE, S3Storage
from benchmax.settings import CoreSettings
from benchmax.stack.s3server import DiskMirror, persistent
from tests.conftest import ROOT

BUCKET = "benchmax-persist"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    def __init__(self, data: Path) -> None:
        self.data = data
        self.port = _free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.log = data.parent / "s3server.log"

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "benchmax.stack.s3server", "--port", str(self.port),
                 "--data", str(self.data)],
                cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{self.port}/", timeout=1)
                return
            except httpx.HTTPError:
                assert time.monotonic() < deadline, self.log.read_text()
                time.sleep(0.1)

    def kill(self) -> None:
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def storage(self) -> S3Storage:
        settings = CoreSettings(
            _env_file=None, env="test", storage_backend="s3",
            s3_endpoint_url=f"http://127.0.0.1:{self.port}", s3_bucket=BUCKET,
            s3_region="us-east-1", s3_access_key_id="stack", s3_secret_access_key="stack",
        )  # fmt: skip
        return S3Storage.from_settings(settings)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    one = Server(tmp_path / "s3")
    one.start()
    yield one
    if one.process is not None and one.process.poll() is None:
        one.kill()


def _read(storage: S3Storage, key: str) -> bytes:
    return b"".join(storage.get(key))


def test_objects_survive_a_sigkill_and_restart_and_deletes_stay_deleted(server: Server) -> None:
    storage = server.storage()
    storage.client.create_bucket(Bucket=BUCKET)
    big = os.urandom(PART_SIZE + 1234)  # a multipart upload
    storage.put("evidence/a b/shot.png", [b"\x89PNG small"], content_type="image/png")
    storage.put("evidence/big.bin", [big])
    storage.copy("evidence/a b/shot.png", "evidence/copy.png")
    storage.put("quarantine/gone.txt", [b"soon deleted"])
    storage.delete("quarantine/gone.txt")
    storage.put("quarantine/both-1", [b"1"])
    storage.put("quarantine/both-2", [b"2"])
    storage.client.delete_objects(
        Bucket=BUCKET,
        Delete={"Objects": [{"Key": "quarantine/both-1"}, {"Key": "quarantine/both-2"}]},
    )

    server.kill()
    server.start()
    storage = server.storage()

    assert [info.key for info in storage.list()] == [
        "evidence/a b/shot.png",
        "evidence/big.bin",
        "evidence/copy.png",
    ]
    assert _read(storage, "evidence/a b/shot.png") == b"\x89PNG small"
    assert _read(storage, "evidence/copy.png") == b"\x89PNG small"
    assert _read(storage, "evidence/big.bin") == big
    head = storage.client.head_object(Bucket=BUCKET, Key="evidence/a b/shot.png")
    assert head["ContentType"] == "image/png"


def test_a_hostile_bucket_name_never_becomes_a_path_outside_the_data_folder(
    server: Server, tmp_path: Path
) -> None:
    base = f"http://127.0.0.1:{server.port}"
    for path in ("/%2e%2e/escape", "/../escape", "/..%2fescape/key", "/a/..%2f..%2fkey"):
        httpx.put(base + path, content=b"x", timeout=5)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s3server.log"]


@pytest.mark.parametrize("path", ["/..", "/%2e%2e", "/.%2E/key", "/a", "/UPPER", "/x/..%2f"])
def test_even_a_change_the_app_accepted_touches_no_folder_but_a_buckets(
    tmp_path: Path, path: str
) -> None:
    """Were moto ever to accept such a request, a bucket-level sync of ``..`` would empty the
    data folder's parent: the name is refused before it becomes a path."""
    keep = tmp_path / "keep.txt"
    keep.write_text("mine")

    def accepting(_environ: dict[str, object], start_response: Any) -> list[bytes]:
        start_response("200 OK", [])
        return [b""]

    app = persistent(accepting, DiskMirror(tmp_path / "s3"))
    for method in ("PUT", "DELETE", "POST"):
        app({"REQUEST_METHOD": method, "RAW_URI": path, "QUERY_STRING": ""}, lambda *a: None)
    assert keep.read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]
