"""The wizard's one-file-per-request upload route: auth, CSRF, caps, ownership, storage."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import quote

import pytest
from sqlmodel import Session, select
from starlette.testclient import TestClient

from benchmax.adapters.auth import SESSION_COOKIE
from benchmax.adapters.storage import QUARANTINE_PREFIX, build_storage
from benchmax.models import EvidenceFile, EvidenceState, TestState, User
from benchmax.settings import Settings
from tests.support.factories import make_test, make_user

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)


@pytest.fixture
def client(api_client: TestClient) -> TestClient:
    """The API on a context whose storage is the settings' own (``build_storage(settings)``)."""
    return api_client


def _draft(session: Session, user: User | None = None) -> str:
    test = make_test(session, user or make_user(session), state=TestState.DRAFT, published_at=None)
    session.commit()
    return test.id


def _post(
    client: TestClient, test_id: str, name: str, body: bytes, headers: dict[str, str]
) -> object:
    return client.post(
        f"/api/v1/tests/{test_id}/files",
        content=body,
        headers={"X-Filename": quote(name), **headers},
    )


@BOTH
def test_a_file_streams_into_quarantine_for_its_owner(
    client: TestClient,
    session: Session,
    settings: Settings,
    session_headers: Callable[[User], dict[str, str]],
) -> None:
    user = make_user(session)
    test_id = _draft(session, user)
    response = client.post(
        f"/api/v1/tests/{test_id}/files",
        content=b"hello log\n",
        headers={"X-Filename": quote("run log ü.txt"), **session_headers(user)},
    )
    assert response.status_code == 201, response.text
    evidence = session.get(EvidenceFile, response.json()["id"])
    assert evidence is not None
    assert evidence.state == EvidenceState.QUARANTINED
    assert evidence.original_name == "run log ü.txt"
    stored = b"".join(build_storage(settings).get(evidence.quarantine_key))
    assert stored == b"hello log\n"
    assert evidence.quarantine_key.startswith(QUARANTINE_PREFIX)


def test_visitors_and_strangers_are_refused(
    client: TestClient, session: Session, session_headers: Callable[[User], dict[str, str]]
) -> None:
    test_id = _draft(session)
    anonymous = client.post(
        f"/api/v1/tests/{test_id}/files", content=b"x", headers={"X-Filename": "a.txt"}
    )
    assert anonymous.status_code == 401
    stranger = make_user(session)
    session.commit()
    other = client.post(
        f"/api/v1/tests/{test_id}/files",
        content=b"x",
        headers={"X-Filename": "a.txt", **session_headers(stranger)},
    )
    assert other.status_code == 404
    assert other.json()["error"]["code"]


def test_a_cookie_without_this_sites_origin_is_refused(
    client: TestClient,
    session: Session,
    settings: Settings,
    session_headers: Callable[[User], dict[str, str]],
) -> None:
    user = make_user(session)
    test_id = _draft(session, user)
    token = session_headers(user)["Authorization"].removeprefix("Bearer ")
    client.cookies.set(SESSION_COOKIE, token)
    forged = client.post(
        f"/api/v1/tests/{test_id}/files",
        content=b"x",
        headers={"X-Filename": "a.txt", "Origin": "https://evil.example"},
    )
    assert forged.status_code == 403
    same_site = client.post(
        f"/api/v1/tests/{test_id}/files",
        content=b"x",
        headers={"X-Filename": "a.txt", "Origin": settings.app_origin},
    )
    assert same_site.status_code == 201


@pytest.mark.parametrize(
    ("name", "headers", "status", "code"),
    [
        ("", {}, 400, "filename_missing"),
        ("big.mp4", {"Content-Length": str(501 * 1024 * 1024)}, 413, "file_too_large"),
        ("../../etc/passwd\x00", {}, 400, None),
    ],
)
def test_clumsy_and_malicious_uploads_get_a_clear_error(
    client: TestClient,
    session: Session,
    session_headers: Callable[[User], dict[str, str]],
    name: str,
    headers: dict[str, str],
    status: int,
    code: str | None,
) -> None:
    user = make_user(session)
    test_id = _draft(session, user)
    response = client.post(
        f"/api/v1/tests/{test_id}/files",
        content=b"" if "Content-Length" in headers else b"data",
        headers={"X-Filename": quote(name), **headers, **session_headers(user)},
    )
    assert response.status_code == status
    error = response.json()["error"]
    assert error["message"]
    if code:
        assert error["code"] == code
    stored = session.exec(select(EvidenceFile).where(EvidenceFile.test_id == test_id)).all()
    assert stored == []


def test_a_published_test_takes_no_more_files(
    client: TestClient, session: Session, session_headers: Callable[[User], dict[str, str]]
) -> None:
    user = make_user(session)
    test = make_test(session, user)
    session.commit()
    response = client.post(
        f"/api/v1/tests/{test.id}/files",
        content=b"late",
        headers={"X-Filename": "late.txt", **session_headers(user)},
    )
    assert response.status_code in (400, 409)
    assert "error" in response.json()
