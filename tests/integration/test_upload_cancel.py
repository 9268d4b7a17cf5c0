"""Cancelling a wizard upload: "not added" holds whether the Cancel beat the bytes or not."""

from __future__ import annotations

import threading
from collections.abc import Callable
from urllib.parse import quote

import httpx2
import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select
from starlette.testclient import TestClient

from benchmax.adapters.auth import SESSION_COOKIE
from benchmax.adapters.storage import ObjectStorage, build_storage
from benchmax.models import CancelledUpload, EvidenceFile, EvidenceState, TestState, User
from benchmax.services.errors import Conflict
from benchmax.services.submissions import files
from benchmax.services.submissions.records import live_files
from benchmax.settings import Settings
from tests.support.factories import make_test, make_user

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
KEY = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"


def _draft(session: Session, user: User) -> str:
    test = make_test(session, user, state=TestState.DRAFT, published_at=None)
    session.commit()
    return test.id


@pytest.fixture
def owned(
    session: Session, session_headers: Callable[[User], dict[str, str]]
) -> tuple[str, dict[str, str]]:
    """A new draft, and its owner's sign-in headers."""
    user = make_user(session)
    return _draft(session, user), session_headers(user)


def _upload(
    client: TestClient, test_id: str, headers: dict[str, str], key: str = KEY
) -> httpx2.Response:
    return client.post(
        f"/api/v1/tests/{test_id}/files",
        content=b"a run log\n",
        headers={"X-Filename": quote("run.log"), "X-Upload-Key": key, **headers},
    )


def _cancel(
    client: TestClient, test_id: str, headers: dict[str, str], key: str = KEY
) -> httpx2.Response:
    return client.delete(f"/api/v1/tests/{test_id}/uploads/{key}", headers=headers)


def _objects(settings: Settings, test_id: str) -> list[str]:
    return [info.key for info in build_storage(settings).list(f"quarantine/{test_id}/")]


@BOTH
def test_a_cancel_after_every_byte_arrived_removes_the_stored_file(
    api_client: TestClient,
    session: Session,
    settings: Settings,
    owned: tuple[str, dict[str, str]],
) -> None:
    test_id, headers = owned
    stored = _upload(api_client, test_id, headers)
    assert stored.status_code == 201, stored.text
    assert _objects(settings, test_id)
    cancelled = _cancel(api_client, test_id, headers)
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json() == {"upload_key": KEY, "cancelled": True}
    session.expire_all()
    evidence = session.get(EvidenceFile, stored.json()["id"])
    assert evidence is not None
    assert evidence.state == EvidenceState.REMOVED
    assert _objects(settings, test_id) == []
    again = _cancel(api_client, test_id, headers)  # a second click changes nothing
    assert again.status_code == 200
    assert len(session.exec(select(CancelledUpload)).all()) == 1


@BOTH
def test_a_cancel_that_beats_the_bytes_keeps_the_upload_from_being_stored(
    api_client: TestClient,
    session: Session,
    settings: Settings,
    owned: tuple[str, dict[str, str]],
) -> None:
    test_id, headers = owned
    assert _cancel(api_client, test_id, headers).status_code == 200
    late = _upload(api_client, test_id, headers)
    assert late.status_code == 409
    assert late.json()["error"]["code"] == "upload_cancelled"
    assert session.exec(select(EvidenceFile).where(EvidenceFile.test_id == test_id)).all() == []
    assert _objects(settings, test_id) == []
    other = _upload(api_client, test_id, headers, key="another-upload-key-123")
    assert other.status_code == 201  # only the cancelled upload is refused


def _race(
    engine: Engine, storage: ObjectStorage, settings: Settings, user: User, test_id: str, key: str
) -> None:
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def add() -> None:
        start.wait()
        try:
            with Session(engine) as session:
                files.add_file(
                    session,
                    storage,
                    user,
                    test_id,
                    "a.txt",
                    [b"x" * 4096],
                    settings=settings,
                    upload_key=key,
                )
                session.commit()
        except Conflict:
            pass  # the cancel was recorded first
        except BaseException as error:  # reported below
            errors.append(error)

    def cancel() -> None:
        start.wait()
        with Session(engine) as session:
            files.cancel_upload(session, storage, user, test_id, key)
            session.commit()

    threads = [threading.Thread(target=add), threading.Thread(target=cancel)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_an_upload_and_its_cancel_racing_never_leave_the_file_counted(
    engine: Engine, session: Session, settings: Settings
) -> None:
    user = make_user(session)
    test_id = _draft(session, user)
    storage = build_storage(settings)
    for round_ in range(12):
        _race(engine, storage, settings, user, test_id, f"racing-upload-key-{round_:02d}")
    session.expire_all()
    assert live_files(session, test_id) == []
    assert _objects(settings, test_id) == []


@pytest.mark.parametrize(
    ("key", "status", "code"),
    [
        ("short", 400, "upload_key_invalid"),
        ("k" * 65, 400, "upload_key_invalid"),
        ("a key with spaces!!", 400, "upload_key_invalid"),
        ("%E2%80%AEcafebabecafebabe", 400, "upload_key_invalid"),
    ],
)
def test_clumsy_and_malicious_keys_are_refused_before_anything_is_stored(
    api_client: TestClient,
    session: Session,
    settings: Settings,
    owned: tuple[str, dict[str, str]],
    key: str,
    status: int,
    code: str,
) -> None:
    test_id, headers = owned
    upload = api_client.post(
        f"/api/v1/tests/{test_id}/files",
        content=b"data",
        headers={"X-Filename": "a.txt", "X-Upload-Key": quote(key, safe="%"), **headers},
    )
    cancel = api_client.delete(
        f"/api/v1/tests/{test_id}/uploads/{quote(key, safe='%')}", headers=headers
    )
    for response in (upload, cancel):
        assert response.status_code == status, response.text
        assert response.json()["error"]["code"] == code
        assert response.json()["error"]["message"]
    assert session.exec(select(EvidenceFile).where(EvidenceFile.test_id == test_id)).all() == []
    assert session.exec(select(CancelledUpload)).all() == []
    assert _objects(settings, test_id) == []


def test_only_the_drafts_owner_can_cancel_and_only_from_this_site(
    api_client: TestClient,
    session: Session,
    settings: Settings,
    session_headers: Callable[[User], dict[str, str]],
) -> None:
    owner, stranger = make_user(session), make_user(session)
    test_id = _draft(session, owner)
    assert _upload(api_client, test_id, session_headers(owner)).status_code == 201
    assert _cancel(api_client, test_id, {}).status_code == 401
    assert _cancel(api_client, test_id, session_headers(stranger)).status_code == 404
    token = session_headers(owner)["Authorization"].removeprefix("Bearer ")
    api_client.cookies.set(SESSION_COOKIE, token)
    assert _cancel(api_client, test_id, {"Origin": "https://evil.example"}).status_code == 403
    assert session.exec(select(CancelledUpload)).all() == []
    assert [file.state for file in live_files(session, test_id)] == [EvidenceState.QUARANTINED]
    assert _cancel(api_client, test_id, {"Origin": settings.app_origin}).status_code == 200
    session.expire_all()
    assert live_files(session, test_id) == []


def test_a_draft_keeps_a_bounded_record_of_cancels(
    api_client: TestClient,
    owned: tuple[str, dict[str, str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(files, "MAX_CANCELLED_UPLOADS", 3)
    test_id, headers = owned
    keys = [f"cancelled-upload-{n:04d}" for n in range(4)]
    assert [_cancel(api_client, test_id, headers, key).status_code for key in keys] == [
        200,
        200,
        200,
        409,
    ]
    assert _cancel(api_client, test_id, headers, keys[0]).status_code == 200  # already there
    refused = _cancel(api_client, test_id, headers, keys[3])
    assert refused.json()["error"]["code"] == "too_many_cancels"
