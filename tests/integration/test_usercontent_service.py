"""The user-content service against a real database and real storage (local and S3 over HTTP)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import httpx2
import pytest
from botocore.config import Config
from sqlalchemy import Engine
from sqlmodel import Session
from starlette.testclient import TestClient

from benchmax.adapters.storage import ObjectStorage
from benchmax.adapters.storage.local import LocalStorage
from benchmax.adapters.storage.s3 import S3Storage
from benchmax.db import make_engine
from benchmax.models import (
    EvidenceFile,
    EvidenceKind,
    EvidenceState,
    SourceVisibility,
    Test,
    TestState,
)
from benchmax.settings import Settings
from tests.support.factories import make_stored_evidence, make_test
from usercontent_service.headers import PERMISSIONS_POLICY
from usercontent_service.sending import STREAM_CHUNK_SIZE
from usercontent_service.service import NOT_FOUND_BODY, create_app

COOKIES = {"__session": "app-session-token"}
DIGITS = b"0123456789"
SECURITY_HEADERS = {
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'none'; sandbox; frame-ancestors http://localhost:3000",
    "cross-origin-resource-policy": "cross-origin",
    "referrer-policy": "no-referrer",
    "permissions-policy": PERMISSIONS_POLICY,
}


@pytest.fixture
def client(
    settings: Settings, engine: Engine, object_storage: ObjectStorage
) -> Iterator[TestClient]:
    app = create_app(settings, engine=engine, storage=object_storage)
    with TestClient(app, cookies=COOKIES) as client:
        yield client


def publish(
    session: Session, storage: ObjectStorage, data: bytes = DIGITS, **overrides: Any
) -> EvidenceFile:
    """A committed public Test with one approved file; overrides go to the evidence row."""
    test_fields = {
        name: overrides.pop(name) for name in ("state", "source_visibility") if name in overrides
    }
    test = make_test(session, **test_fields)
    values: dict[str, Any] = {
        "kind": EvidenceKind.IMAGE,
        "content_type": "image/png",
        "safe_name": "shot.png",
    }
    values.update(overrides)
    evidence = make_stored_evidence(session, storage, test, data, **values)
    session.commit()
    return evidence


def assert_refused(response: httpx2.Response, method: str = "GET") -> None:
    assert response.status_code == 404
    assert response.content == (b"" if method == "HEAD" else NOT_FOUND_BODY)
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    assert response.headers["content-length"] == str(len(NOT_FOUND_BODY))
    assert_secure(response)


def assert_secure(response: httpx2.Response) -> None:
    for name, value in SECURITY_HEADERS.items():
        assert response.headers[name] == value
    assert "set-cookie" not in response.headers


def test_serves_an_image_inline_with_every_header(
    client: TestClient, session: Session, object_storage: ObjectStorage
) -> None:
    evidence = publish(session, object_storage)

    response = client.get(f"/e/{evidence.id}/anything-at-all.png")

    assert response.status_code == 200
    assert response.content == DIGITS
    assert response.headers["content-type"] == "image/png"
    assert response.headers["content-disposition"] == 'inline; filename="shot.png"'
    assert response.headers["etag"] == f'"{hashlib.sha256(DIGITS).hexdigest()}"'
    assert response.headers["cache-control"] == "public, no-cache"
    assert response.headers["accept-ranges"] == "bytes"
    assert response.headers["content-length"] == "10"
    assert_secure(response)


@pytest.mark.parametrize(
    ("kind", "stored_type", "safe_name", "served_type", "disposition"),
    [
        (EvidenceKind.TEXT, "text/html", "page.html", "text/plain; charset=utf-8",
         'attachment; filename="page_html.txt"'),
        (EvidenceKind.TEXT, "application/json", "run.json", "text/plain; charset=utf-8",
         'attachment; filename="run.json"'),
        (EvidenceKind.IMAGE, "image/svg+xml", "logo.svg", "application/octet-stream",
         'attachment; filename="logo_svg.bin"'),
        (EvidenceKind.VIDEO, "video/webm", "clip.webm", "video/webm",
         'inline; filename="clip.webm"'),
        (EvidenceKind.VIDEO, "video/quicktime", "clip.mov", "application/octet-stream",
         'attachment; filename="clip_mov.bin"'),
        (EvidenceKind.SOURCE, "application/zip", "site.zip", "application/octet-stream",
         'attachment; filename="site.zip"'),
    ],
)  # fmt: skip
def test_type_and_disposition_come_from_the_verified_kind(
    client: TestClient,
    session: Session,
    object_storage: ObjectStorage,
    kind: EvidenceKind,
    stored_type: str,
    safe_name: str,
    served_type: str,
    disposition: str,
) -> None:
    evidence = publish(
        session,
        object_storage,
        kind=kind,
        content_type=stored_type,
        safe_name=safe_name,
        source_visibility=SourceVisibility.PUBLIC,
    )

    response = client.get(f"/e/{evidence.id}/{safe_name}")

    assert response.status_code == 200
    assert response.headers["content-type"] == served_type
    assert response.headers["content-disposition"] == disposition


@pytest.mark.parametrize(
    ("header", "status", "body", "content_range"),
    [
        ("bytes=0-0", 206, b"0", "bytes 0-0/10"),
        ("bytes=3-6", 206, b"3456", "bytes 3-6/10"),
        ("bytes=7-", 206, b"789", "bytes 7-9/10"),
        ("bytes=-3", 206, b"789", "bytes 7-9/10"),
        ("bytes=-50", 206, DIGITS, "bytes 0-9/10"),
        ("bytes=8-1000", 206, b"89", "bytes 8-9/10"),
        ("bytes=10-", 416, b"", "bytes */10"),
        ("bytes=10-20", 416, b"", "bytes */10"),
        ("bytes=5-2", 416, b"", "bytes */10"),
        ("bytes=-0", 416, b"", "bytes */10"),
        ("bytes=abc", 416, b"", "bytes */10"),
        ("bytes=-", 416, b"", "bytes */10"),
        ("bytes=99999999999999999999999-", 416, b"", "bytes */10"),
        ("items=0-1", 200, DIGITS, None),
        ("bytes=0-1,4-5", 200, DIGITS, None),
    ],
)
def test_ranges(
    client: TestClient,
    session: Session,
    object_storage: ObjectStorage,
    header: str,
    status: int,
    body: bytes,
    content_range: str | None,
) -> None:
    evidence = publish(session, object_storage)

    response = client.get(f"/e/{evidence.id}/x", headers={"Range": header})
    head = client.head(f"/e/{evidence.id}/x", headers={"Range": header})

    assert (response.status_code, response.content) == (status, body)
    assert response.headers.get("content-range") == content_range
    assert head.status_code == status
    assert head.headers["content-length"] == str(len(body))
    assert head.content == b""
    assert_secure(response)


def test_if_range_only_honoured_for_the_current_etag(
    client: TestClient, session: Session, object_storage: ObjectStorage
) -> None:
    evidence = publish(session, object_storage)
    url = f"/e/{evidence.id}/x"

    current = client.get(url, headers={"Range": "bytes=0-1", "If-Range": f'"{evidence.sha256}"'})
    stale = client.get(url, headers={"Range": "bytes=0-1", "If-Range": '"something-else"'})

    assert (current.status_code, current.content) == (206, b"01")
    assert (stale.status_code, stale.content) == (200, DIGITS)


@pytest.mark.parametrize("template", ['"{sha}"', 'W/"{sha}"', '"other", "{sha}"', "*"])
def test_if_none_match_gives_304(
    client: TestClient, session: Session, object_storage: ObjectStorage, template: str
) -> None:
    evidence = publish(session, object_storage)

    response = client.get(
        f"/e/{evidence.id}/x", headers={"If-None-Match": template.format(sha=evidence.sha256)}
    )

    assert response.status_code == 304
    assert response.content == b""
    assert response.headers["etag"] == f'"{evidence.sha256}"'
    assert response.headers["cache-control"] == "public, no-cache"
    assert_secure(response)


def test_if_none_match_other_etag_serves(
    client: TestClient, session: Session, object_storage: ObjectStorage
) -> None:
    evidence = publish(session, object_storage)

    response = client.get(f"/e/{evidence.id}/x", headers={"If-None-Match": '"stale"'})

    assert (response.status_code, response.content) == (200, DIGITS)


@pytest.mark.parametrize(
    ("table", "change"),
    [
        ("test", {"state": TestState.REMOVED}),
        ("test", {"state": TestState.PROCESSING}),
        ("evidence", {"state": EvidenceState.REMOVED}),
        ("evidence", {"state": EvidenceState.BLOCKED}),
    ],
)
def test_removal_takes_effect_on_the_next_request_even_when_revalidating(
    client: TestClient,
    session: Session,
    object_storage: ObjectStorage,
    table: str,
    change: dict[str, object],
) -> None:
    evidence = publish(session, object_storage)
    url = f"/e/{evidence.id}/shot.png"
    assert client.get(url).status_code == 200

    target = evidence if table == "evidence" else session.get(Test, evidence.test_id)
    assert target is not None
    for name, value in change.items():
        setattr(target, name, value)
    session.add(target)
    session.commit()

    assert_refused(client.get(url))
    assert_refused(client.get(url, headers={"If-None-Match": f'"{evidence.sha256}"'}))
    assert_refused(client.head(url), "HEAD")


@pytest.mark.parametrize(
    "overrides",
    [
        {"size_bytes": 11},
        {"size_bytes": 9},
        {"kind": None},
        {"sha256": ""},
        {"sha256": "Z" * 64},
    ],
    ids=["size-larger", "size-smaller", "no-kind", "no-sha", "bad-sha"],
)
def test_rows_that_do_not_match_what_was_approved_are_refused(
    client: TestClient,
    session: Session,
    object_storage: ObjectStorage,
    overrides: dict[str, Any],
) -> None:
    evidence = publish(session, object_storage, **overrides)

    assert_refused(client.get(f"/e/{evidence.id}/x"))
    assert_refused(client.head(f"/e/{evidence.id}/x"), "HEAD")


def test_object_missing_from_storage_is_refused(
    client: TestClient, session: Session, object_storage: ObjectStorage
) -> None:
    evidence = publish(session, object_storage)
    object_storage.delete(evidence.storage_key)

    assert_refused(client.get(f"/e/{evidence.id}/x"))


def test_a_key_outside_the_evidence_prefix_is_refused(
    client: TestClient, session: Session, object_storage: ObjectStorage
) -> None:
    evidence = publish(session, object_storage, storage_key="quarantine/abc/upload")

    assert object_storage.head("quarantine/abc/upload") is not None
    assert_refused(client.get(f"/e/{evidence.id}/x"))


@pytest.mark.parametrize(
    "path",
    [
        "/e/zzzzzzzzzzzzzzzz/x.png",
        "/e/ZZ%2e%2e/x",
        "/e/" + "a" * 65 + "/x",
        "/e/abc%00/x",
        "/e/abc.def/x",
        "/e/ab%20cd/x",
        "/e/ab'--/x",
        "/e/only-an-id",
        "/e/",
        "/e//x",
        "/",
        "/evidence/abc",
    ],
)
def test_malformed_and_unknown_paths_get_the_same_404(client: TestClient, path: str) -> None:
    assert_refused(client.get(path))
    assert_refused(client.head(path), "HEAD")


@pytest.mark.parametrize(
    "method", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "PROPFIND", "FOO"]
)
def test_other_methods_get_the_same_404(
    client: TestClient, session: Session, object_storage: ObjectStorage, method: str
) -> None:
    evidence = publish(session, object_storage)

    for path in (f"/e/{evidence.id}/x", "/healthz", "/e/only-an-id", "/nowhere"):
        response = client.request(method, path, headers={"Origin": "https://evil.example"})
        assert_refused(response)
        assert "allow" not in response.headers


ODD_PATHS = [
    "/e/only-an-id",
    "/healthz/",
    "/e",
    "/e/",
    "//e/abc/x",
    "/E/abc/x",
    "/e/abc/x/",
    "/%2e%2e/e/abc/x",
    "/e/%2Fabc/x",
    "/e\\abc\\x",
    "/" + "x" * 5000,
    "/favicon.ico",
    "/robots.txt",
    "/.well-known/security.txt",
]
ODD_HOSTS = ["evil.example", "evil.example:443", "localhost", "[::1]", "a" * 300, "", "x y"]


@pytest.mark.parametrize("path", ODD_PATHS)
@pytest.mark.parametrize("host", ODD_HOSTS)
def test_no_redirect_and_no_echo_for_any_path_or_host(
    settings: Settings, engine: Engine, object_storage: ObjectStorage, path: str, host: str
) -> None:
    app = create_app(settings, engine=engine, storage=object_storage)
    with TestClient(app, follow_redirects=False) as client:
        for method in ("GET", "HEAD", "POST"):
            response = client.request(method, path, headers={"Host": host})
            assert_refused(response, method)
            assert "location" not in response.headers
            assert host.encode() not in response.content or not host


def test_large_file_streams_in_chunks_and_ranges_across_them(
    client: TestClient, session: Session, object_storage: ObjectStorage
) -> None:
    data = bytes(range(256)) * (3 * STREAM_CHUNK_SIZE // 256 + 7)
    evidence = publish(session, object_storage, data, kind=EvidenceKind.TEXT)
    url = f"/e/{evidence.id}/big.txt"
    start, end = STREAM_CHUNK_SIZE - 5, 2 * STREAM_CHUNK_SIZE + 5

    with client.stream("GET", url) as response:
        chunks = list(response.iter_raw())
    ranged = client.get(url, headers={"Range": f"bytes={start}-{end}"})

    assert b"".join(chunks) == data
    assert len(chunks) > 1
    assert ranged.status_code == 206
    assert ranged.content == data[start : end + 1]


def test_a_broken_database_is_just_404(
    settings: Settings, tmp_path: Path, object_storage: ObjectStorage
) -> None:
    unmigrated = make_engine(f"sqlite:///{tmp_path / 'empty.db'}")
    app = create_app(settings, engine=unmigrated, storage=object_storage)

    with TestClient(app) as client:
        assert_refused(client.get("/e/zzzzzzzzzzzzzzzz/x"))

    unreachable = make_engine("postgresql://postgres@127.0.0.1:1/none")
    with TestClient(create_app(settings, engine=unreachable, storage=object_storage)) as client:
        assert_refused(client.get("/e/zzzzzzzzzzzzzzzz/x"))
        health = client.get("/healthz")
    assert health.status_code == 503
    assert health.json() == {"status": "unavailable"}
    assert_secure(health)


def test_a_broken_store_is_just_404(settings: Settings, engine: Engine, session: Session) -> None:
    test = make_test(session)
    unreachable = S3Storage(
        boto3.client(
            "s3",
            endpoint_url="http://127.0.0.1:1",
            region_name="us-east-1",
            aws_access_key_id="x",
            aws_secret_access_key="x",
            config=Config(retries={"total_max_attempts": 1}, connect_timeout=1),
        ),
        "bucket",
    )
    row = EvidenceFile(
        test_id=test.id,
        kind=EvidenceKind.IMAGE,
        original_name="a.png",
        safe_name="a.png",
        content_type="image/png",
        size_bytes=3,
        sha256="a" * 64,
        storage_key="evidence/a/b",
        state=EvidenceState.APPROVED,
    )
    session.add(row)
    session.commit()

    with TestClient(create_app(settings, engine=engine, storage=unreachable)) as client:
        assert_refused(client.get(f"/e/{row.id}/a.png"))
        assert client.get("/healthz").status_code == 503


def test_healthz(client: TestClient) -> None:
    response = client.get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert response.headers["cache-control"] == "no-store"
    assert_secure(response)


@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
def test_both_databases(
    settings: Settings, engine: Engine, session: Session, tmp_path: Path
) -> None:
    storage = LocalStorage(tmp_path / "objects")
    public = publish(session, storage)
    private_source = publish(session, storage, kind=EvidenceKind.SOURCE, safe_name="s.zip")

    with TestClient(create_app(settings, engine=engine, storage=storage)) as client:
        assert client.get(f"/e/{public.id}/x").content == DIGITS
        assert_refused(client.get(f"/e/{private_source.id}/x"))
