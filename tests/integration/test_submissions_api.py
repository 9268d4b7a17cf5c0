"""The submission API over real HTTP semantics (Starlette's TestClient) on a real database."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, func
from sqlmodel import Session, select
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from benchmax.adapters.storage.local import LocalStorage
from benchmax.api.errors import EXCEPTION_HANDLERS
from benchmax.api.submissions import submission_routes
from benchmax.api.upload_limits import UploadSizeLimit
from benchmax.context import AppContext
from benchmax.models import AccountStatus, EvidenceFile, Test, TestState, User
from benchmax.services import submissions, tokens
from benchmax.services.jobs import JobContext
from benchmax.services.safety import SafetyLimits
from benchmax.settings import Settings
from tests.support.submission_helpers import contributor, drain, load
from tests.unit.safety.corpus import fake_secrets, png_bytes, zip_bytes

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
FORM = {
    "prompt": "Build a todo app.",
    "model": "Claude Sonnet 4.5",
    "model_version": "2025-09-29",
    "harness": "Claude Code",
    "reasoning": "high",
    "output": "It works.",
    "title": "Todo app",
    "settings": "temperature 0",
    "attempts": "3",
    "notes": "first try",
    "source_visibility": "public",
}


class Api:
    def __init__(self, engine: Engine, settings: Settings, root: Path, **limits: Any) -> None:
        self.engine = engine
        self.storage = LocalStorage(root / "objects")
        self.ctx = AppContext.from_settings(settings, engine=engine, storage=self.storage)
        routes = submission_routes(self.ctx, SafetyLimits(**limits))
        self.client = TestClient(Starlette(routes=routes, exception_handlers=EXCEPTION_HANDLERS))

    def user_token(self, **overrides: Any) -> tuple[User, str]:
        user = contributor(self.engine, **overrides)
        with Session(self.engine) as session:
            _row, plaintext = tokens.create_token(session, user, "ci")
            session.commit()
        return user, plaintext

    def post(self, token: str, data: dict[str, str] | None = None, files: Any = None, **kw: Any):
        headers = {"Authorization": f"Bearer {token}", **kw.pop("headers", {})}
        return self.client.post(
            "/api/v1/tests",
            data=FORM if data is None else data,
            files=files or [("files", ("shot.png", png_bytes(), "image/png"))],
            headers=headers,
            **kw,
        )

    def count(self, model: type) -> int:
        with Session(self.engine) as session:
            return session.exec(select(func.count()).select_from(model)).one()


@pytest.fixture
def api(engine: Engine, settings: Settings, tmp_path: Path) -> Api:
    quick = settings.model_copy(
        update={"api_submission_rate_limit": 3, "upload_max_request_bytes": 2_000_000}
    )
    return Api(engine, quick, tmp_path)


def _error(response: Any, status: int, code: str, field: str | None = None) -> None:
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code
    assert response.json()["error"]["field"] == field
    assert response.json()["error"]["message"]


@BOTH
def test_post_accepts_then_status_follows_to_public(api: Api, job_ctx: JobContext) -> None:
    _user, token = api.user_token()
    response = api.post(token)
    assert response.status_code == 202, response.text
    body = response.json()
    assert body["status"] == "processing"
    assert body["status_url"].endswith(f"/api/v1/tests/{body['id']}/status")
    status = api.client.get(f"/api/v1/tests/{body['id']}/status", headers=_auth(token)).json()
    assert (status["plain_status"], status["files"][0]["state"]) == ("Processing", "quarantined")
    ctx = replace(job_ctx, storage=api.storage)
    drain(ctx)
    status = api.client.get(f"/api/v1/tests/{body['id']}/status", headers=_auth(token)).json()
    assert status["plain_status"] == "Awaiting review"
    assert status["public_url"] == f"/tests/{body['id']}"
    assert status["files"][0]["kind"] == "image"


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# What differs between any two Tests, however they were made.
_PER_TEST = {
    "id", "created_at", "updated_at", "submitted_at", "published_at",
    "idempotency_key", "idempotency_fingerprint", "thumbnail_evidence_id",
}  # fmt: skip


def test_api_and_wizard_make_the_same_test(api: Api, job_ctx: JobContext) -> None:
    user, token = api.user_token()
    files = {"shot.png": png_bytes(), "src.zip": zip_bytes({"index.html": b"<p>x</p>"})}
    response = api.post(token, files=[("files", (name, data)) for name, data in files.items()])
    api_id = response.json()["id"]
    with Session(api.engine, expire_on_commit=False) as session:
        draft = submissions.create_draft(session, user, api.ctx.settings)
        fields = {
            "prompt": FORM["prompt"],
            "model_label": FORM["model"],
            "model_version_label": FORM["model_version"],
            "harness_label": FORM["harness"],
            "reasoning_label": FORM["reasoning"],
            "output_text": FORM["output"],
            "title": FORM["title"],
            "settings_text": FORM["settings"],
            "attempts": FORM["attempts"],
            "notes": FORM["notes"],
            "source_visibility": FORM["source_visibility"],
        }
        submissions.save_draft(session, user, draft.id, fields, step=5)
        for name, data in files.items():
            submissions.add_file(
                session, api.storage, user, draft.id, name, [data], settings=api.ctx.settings
            )
        submissions.submit(session, user, draft.id)
        session.commit()
    ctx = replace(job_ctx, storage=api.storage)
    drain(ctx)
    shapes = []
    for test_id in (api_id, draft.id):
        test, rows = load(api.engine, test_id)
        # Read as stored: table models keep string columns as loaded, so model_dump would
        # warn about enum-typed fields holding their string values.
        row_values = {
            name: getattr(test, name) for name in Test.model_fields if name not in _PER_TEST
        }
        evidence = [
            (r.kind, r.state, r.safe_name, r.content_type, r.sha256, r.size_bytes) for r in rows
        ]
        shapes.append((row_values, evidence))
    assert shapes[0] == shapes[1]
    assert shapes[0][0]["state"] == TestState.PUBLIC


@pytest.mark.parametrize(
    ("header", "code"),
    [
        (None, "missing_token"),
        ("Bearer bmx_" + "x" * 40, "invalid_token"),
        ("Basic a:b", "missing_token"),
    ],
)
def test_401_without_a_valid_token(api: Api, header: str | None, code: str) -> None:
    headers = {"Authorization": header} if header else {}
    response = api.client.post("/api/v1/tests", data=FORM, headers=headers)
    _error(response, 401, code)
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert api.client.get("/api/v1/tests/abc/status").status_code == 401


def test_403_for_a_suspended_account_that_can_still_read_its_status(api: Api) -> None:
    user, token = api.user_token()
    earlier = api.post(token).json()["id"]
    with Session(api.engine) as session:
        row = session.get(User, user.id)
        assert row is not None
        row.status = AccountStatus.SUSPENDED
        session.add(row)
        session.commit()
    _error(api.post(token), 403, "account_suspended")
    assert api.count(Test) == 1
    # Reads are not writes: the suspended contributor still follows their own Test…
    status = api.client.get(f"/api/v1/tests/{earlier}/status", headers=_auth(token))
    assert status.status_code == 200, status.text
    assert status.json()["plain_status"] == "Processing"
    # …but nobody else's, and an unknown one is the same 404 as before.
    _other, other_token = api.user_token()
    other_test = api.post(other_token).json()["id"]
    _error(
        api.client.get(f"/api/v1/tests/{other_test}/status", headers=_auth(token)), 404, "not_found"
    )
    _error(
        api.client.get("/api/v1/tests/zzzzzzzzzzzzzzzz/status", headers=_auth(token)),
        404,
        "not_found",
    )


def test_404_for_someone_elses_or_unknown_test(api: Api) -> None:
    _owner, owner_token = api.user_token()
    _other, other_token = api.user_token()
    test_id = api.post(owner_token).json()["id"]
    _error(
        api.client.get(f"/api/v1/tests/{test_id}/status", headers=_auth(other_token)),
        404,
        "not_found",
    )
    _error(
        api.client.get("/api/v1/tests/nonexistent/status", headers=_auth(owner_token)),
        404,
        "not_found",
    )


def test_415_unless_multipart(api: Api) -> None:
    _user, token = api.user_token()
    response = api.client.post("/api/v1/tests", json=FORM, headers=_auth(token))
    _error(response, 415, "unsupported_media_type")


@pytest.mark.parametrize(
    ("data", "code", "field"),
    [
        ({k: v for k, v in FORM.items() if k != "prompt"}, "required", "prompt"),
        ({**FORM, "harness": ""}, "required", "harness"),
        ({**FORM, "attempts": "-1"}, "invalid_attempts", "attempts"),
        ({**FORM, "colour": "blue"}, "unknown_field", "colour"),
        (
            {**FORM, "output": "key " + fake_secrets()["openai_api_key"]},
            "secret_detected",
            "output",
        ),
    ],
)
def test_400_names_the_field_and_stores_nothing(
    api: Api, data: dict[str, str], code: str, field: str
) -> None:
    _user, token = api.user_token()
    _error(api.post(token, data=data), 400, code, field)
    assert api.count(Test) == 0
    assert list(api.storage.list("quarantine/")) == []


def test_400_for_a_bad_file_name_or_too_many_files(
    engine: Engine, settings: Settings, tmp_path: Path
) -> None:
    api = Api(engine, settings, tmp_path, test_max_files=2)
    _user, token = api.user_token()
    three = [("files", (f"{n}.txt", b"hello\n")) for n in range(3)]
    _error(api.post(token, files=three), 400, "test_too_many_files", "files")
    _error(
        api.post(token, files=[("files", ("a\u202eb.txt", b"x"))]),
        400,
        "filename_control_chars",
        "files",
    )
    assert (api.count(Test), api.count(EvidenceFile)) == (0, 0)
    assert list(api.storage.list("quarantine/")) == []


def test_413_by_content_length_before_reading_and_while_streaming(api: Api) -> None:
    _user, token = api.user_token()
    big = [("files", ("big.txt", b"a" * 2_100_000))]
    _error(api.post(token, files=big), 413, "request_too_large")

    def body() -> Iterator[bytes]:  # no Content-Length: counted as it streams
        yield b'--b\r\nContent-Disposition: form-data; name="prompt"\r\n\r\n'
        for _ in range(30):
            yield b"p" * 100_000

    response = api.client.post(
        "/api/v1/tests",
        content=body(),
        headers={**_auth(token), "Content-Type": "multipart/form-data; boundary=b"},
    )
    _error(response, 413, "request_too_large")
    assert api.count(Test) == 0


def test_413_for_a_file_over_the_largest_kind(
    engine: Engine, settings: Settings, tmp_path: Path
) -> None:
    api = Api(
        engine,
        settings,
        tmp_path,
        image_max_bytes=1000,
        video_max_bytes=1000,
        text_max_bytes=1000,
        zip_max_bytes=1000,
    )
    _user, token = api.user_token()
    _error(
        api.post(token, files=[("files", ("a.txt", b"a" * 1001))]), 413, "file_too_large", "files"
    )
    assert api.count(Test) == 0


def test_idempotency_key_returns_the_first_result(api: Api) -> None:
    _user, token = api.user_token()
    first = api.post(token, headers={"Idempotency-Key": "run-42"})
    again = api.post(token, headers={"Idempotency-Key": "run-42"})
    assert first.status_code == again.status_code == 202
    assert first.json()["id"] == again.json()["id"]
    assert api.count(Test) == 1
    other = api.post(
        token, data={**FORM, "notes": "different"}, headers={"Idempotency-Key": "run-42"}
    )
    _error(other, 409, "idempotency_key_reused")
    _error(api.post(token, headers={"Idempotency-Key": "x" * 201}), 400, "invalid_idempotency_key")
    # Another contributor's identical key is theirs alone.
    _other, other_token = api.user_token()
    assert (
        api.post(other_token, headers={"Idempotency-Key": "run-42"}).json()["id"]
        != first.json()["id"]
    )


@BOTH
def test_429_after_the_per_account_limit_with_retry_after(api: Api) -> None:
    _user, token = api.user_token()
    for n in range(3):
        assert api.post(token, headers={"Idempotency-Key": f"k{n}"}).status_code == 202
    limited = api.post(token)
    _error(limited, 429, "rate_limited")
    assert 1 <= int(limited.headers["Retry-After"]) <= 600
    assert api.post(token, headers={"Idempotency-Key": "k0"}).status_code == 202  # replays are free
    _second, fresh = api.user_token()
    assert api.post(fresh).status_code == 202
    assert api.count(Test) == 4


@BOTH
def test_every_token_of_one_account_shares_its_budget(api: Api) -> None:
    user, first = api.user_token()
    with Session(api.engine) as session:
        owner = session.get(User, user.id)
        assert owner is not None
        second_row, second = tokens.create_token(session, owner, "second harness")
        second_id = second_row.id
        session.commit()
    assert api.post(first).status_code == 202
    assert api.post(second).status_code == 202
    assert api.post(first).status_code == 202
    _error(api.post(second), 429, "rate_limited")  # a second token is not a second budget
    # Nor is revoking a token and making a new one (the clumsy and the sly way alike).
    with Session(api.engine) as session:
        owner = session.get(User, user.id)
        assert owner is not None
        tokens.revoke_token(session, owner, second_id)
        _row, third = tokens.create_token(session, owner, "third harness")
        session.commit()
    _error(api.post(third), 429, "rate_limited")
    assert "account" in api.post(first).json()["error"]["message"]
    assert api.count(Test) == 3


def _echo_app() -> Starlette:
    async def upload(request: Request) -> JSONResponse:
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
        return JSONResponse({"size": size})

    return Starlette(
        routes=[
            Route("/_upload", upload, methods=["POST"]),
            Route("/other", upload, methods=["POST"]),
        ]
    )


def test_upload_middleware_caps_reflex_uploads() -> None:
    client = TestClient(UploadSizeLimit(_echo_app(), max_bytes=1000))
    assert client.post("/_upload", content=b"a" * 1000).json() == {"size": 1000}
    _error(client.post("/_upload", content=b"a" * 1001), 413, "request_too_large")

    def chunks() -> Iterator[bytes]:
        for _ in range(5):
            yield b"a" * 400

    _error(client.post("/_upload", content=chunks()), 413, "request_too_large")
    assert client.post("/other", content=b"a" * 5000).json() == {"size": 5000}
