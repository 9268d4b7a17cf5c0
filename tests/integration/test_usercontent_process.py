"""The service as it is deployed: uvicorn in its own process, given only its own settings."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlmodel import Session

from benchmax.adapters.storage import ObjectStorage
from benchmax.adapters.storage.local import LocalStorage
from benchmax.adapters.storage.s3 import S3Storage
from benchmax.db import make_engine
from benchmax.models import EvidenceKind
from tests.support.factories import make_stored_evidence, make_test
from tests.support.s3server import make_s3_settings
from usercontent_service.service import NOT_FOUND_BODY

ROOT = Path(__file__).resolve().parents[2]
_LISTENING = re.compile(r"Uvicorn running on http://127\.0\.0\.1:(\d+)")


def _serve(env: dict[str, str], cwd: Path) -> Iterator[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "usercontent_service.app:app", "--host", "127.0.0.1",
         "--port", "0", "--no-server-header"],
        cwd=cwd,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    assert process.stderr is not None
    try:
        for line in process.stderr:
            match = _LISTENING.search(line)
            if match:
                yield f"http://127.0.0.1:{match.group(1)}"
                break
        else:
            pytest.fail(f"the service did not start (exit {process.wait()})")
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture(params=["local", "s3"])
def deployment(
    request: pytest.FixtureRequest, sqlite_template: Path, s3_endpoint: str, tmp_path: Path
) -> tuple[dict[str, str], ObjectStorage, str]:
    """A minimal environment: PATH, the import path, and BenchMax core settings only."""
    database_url = f"sqlite:///{tmp_path / 'benchmax.db'}"
    shutil.copyfile(sqlite_template, tmp_path / "benchmax.db")
    env = {
        "PATH": os.environ["PATH"],
        "PYTHONPATH": str(ROOT),
        "BENCHMAX_DATABASE_URL": database_url,
        "BENCHMAX_APP_ORIGIN": "http://localhost:3000",
    }
    storage: ObjectStorage
    if request.param == "s3":
        settings = make_s3_settings(s3_endpoint)
        storage = S3Storage.from_settings(settings)
        env |= {
            "BENCHMAX_STORAGE_BACKEND": "s3",
            "BENCHMAX_S3_ENDPOINT_URL": settings.s3_endpoint_url,
            "BENCHMAX_S3_BUCKET": settings.s3_bucket,
            "BENCHMAX_S3_REGION": settings.s3_region,
            "BENCHMAX_S3_ACCESS_KEY_ID": "testing",
            "BENCHMAX_S3_SECRET_ACCESS_KEY": "testing",
        }
    else:
        storage = LocalStorage(tmp_path / "objects")
        env["BENCHMAX_STORAGE_LOCAL_ROOT"] = str(tmp_path / "objects")
    return env, storage, database_url


def test_serves_with_only_its_own_settings(
    deployment: tuple[dict[str, str], ObjectStorage, str], tmp_path: Path
) -> None:
    env, storage, database_url = deployment
    engine = make_engine(database_url)
    with Session(engine, expire_on_commit=False) as session:
        test = make_test(session)
        image = make_stored_evidence(
            session,
            storage,
            test,
            b"\x89PNG fake",
            kind=EvidenceKind.IMAGE,
            content_type="image/png",
        )
        session.commit()
    engine.dispose()
    assert not any(name.startswith(("BENCHMAX_CLERK", "BENCHMAX_JUDGE")) for name in env)
    assert "BENCHMAX_LOCAL_ISSUER_KEY_PATH" not in env

    workdir = tmp_path / "cwd"  # no .env file here to fall back on
    workdir.mkdir()
    for base in _serve(env, workdir):
        cookies = {"__session": "app-cookie"}
        with httpx.Client(base_url=base, cookies=cookies, timeout=30) as client:
            health = client.get("/healthz")
            served = client.get(f"/e/{image.id}/shot.png")
            ranged = client.get(f"/e/{image.id}/shot.png", headers={"Range": "bytes=1-3"})
            refused = client.get("/e/zzzzzzzzzzzzzzzz/shot.png")
            posted = client.post(f"/e/{image.id}/shot.png")

    assert (health.status_code, health.json()) == (200, {"status": "ok"})
    assert (served.status_code, served.content) == (200, b"\x89PNG fake")
    assert served.headers["content-type"] == "image/png"
    assert (ranged.status_code, ranged.content) == (206, b"PNG")
    assert (refused.status_code, refused.content) == (404, NOT_FOUND_BODY)
    assert (posted.status_code, posted.content) == (404, NOT_FOUND_BODY)
    for response in (health, served, ranged, refused, posted):
        assert "set-cookie" not in response.headers
        assert response.headers["x-content-type-options"] == "nosniff"


def _raw(base: str, request: bytes) -> bytes:
    """The raw response to ``request``, so Host and path reach uvicorn exactly as written."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as connection:
        connection.sendall(request)
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
    return received


@pytest.mark.parametrize(
    "request_line",
    [
        b"GET /e/only-an-id HTTP/1.1",
        b"GET /healthz/ HTTP/1.1",
        b"GET /e HTTP/1.1",
        b"HEAD /e/only-an-id HTTP/1.1",
        b"POST /e/only-an-id HTTP/1.1",
        b"OPTIONS * HTTP/1.1",
        b"GET http://evil.example/e/only-an-id HTTP/1.1",
    ],
)
def test_raw_requests_with_a_forged_host_get_the_one_404(
    deployment: tuple[dict[str, str], ObjectStorage, str], tmp_path: Path, request_line: bytes
) -> None:
    env, _storage, _url = deployment
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    for base in _serve(env, workdir):
        for host in (b"evil.example", b"evil.example:8080", b"127.0.0.1"):
            response = _raw(
                base, request_line + b"\r\nHost: " + host + b"\r\nConnection: close\r\n\r\n"
            )
            head, _, body = response.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 404 "), head
            assert b"\r\nlocation:" not in head.lower()
            assert b"evil" not in response
            assert body in (b"", NOT_FOUND_BODY)
