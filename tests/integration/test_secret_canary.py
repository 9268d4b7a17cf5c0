"""Acceptance: a canary key sent through every text input is found nowhere afterwards.

One fresh fake key (and a fake AWS access key ID, for inputs too short for the first) goes
through every free-text input BenchMax stores — through the JSON API, the services the
pages call and the ``benchmax`` command — and through JSON evidence where it hides behind
escapes. Then the database (the SQLite file's bytes; every row of the PostgreSQL database),
object storage (the local directory; every object in a moto S3 bucket), everything logged
(captured logging at DEBUG, stdout and stderr of this process and its scan children, the
job rows' error fields) and every response body are searched for it.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, col, select
from starlette.testclient import TestClient

from benchmax.adapters.auth import LocalIssuer
from benchmax.adapters.storage import ObjectStorage
from benchmax.adapters.storage.local import LocalStorage
from benchmax.adapters.storage.s3 import S3Storage
from benchmax.api import build_api
from benchmax.cli import main as cli
from benchmax.context import AppContext
from benchmax.db import session_scope
from benchmax.models import EvidenceFile, EvidenceState, Job, JobState, Report, Role, Test, User
from benchmax.services import accounts, submissions, tokens
from benchmax.services.errors import Invalid, ServiceError
from benchmax.services.jobs import JobContext
from benchmax.services.moderation import disputes, reports
from benchmax.services.operations import discard_job, requeue_job
from benchmax.settings import Settings
from tests.support.canary import every_object, every_row
from tests.support.factories import make_review, make_stored_evidence, make_test, make_user
from tests.support.s3server import make_s3_settings
from tests.support.submission_helpers import drain
from tests.unit.safety.corpus import (
    canary_access_key_id,
    canary_fragment,
    canary_key,
    png_bytes,
    zip_bytes,
)

CASES = pytest.mark.parametrize(
    ("database_url", "backend"),
    [("sqlite", "local"), ("postgres", "s3")],
    indirect=["database_url"],
)
API_TEXT_FIELDS = (
    "prompt", "model", "model_version", "harness", "reasoning", "output", "title", "settings",
    "notes",
)  # fmt: skip
SINGLE_LINE = ("model", "model_version", "harness", "reasoning", "title")
_CLIENT_LOGGERS = ("httpx", "httpcore")
FORM = {"prompt": "Say hi.", "model": "GPT-5", "harness": "API direct", "reasoning": "none"}


@dataclass
class World:
    client: TestClient
    engine: Engine
    storage: ObjectStorage
    settings: Settings
    ctx: AppContext
    key: str = field(default_factory=canary_key)
    access_key: str = field(default_factory=canary_access_key_id)
    bodies: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """A realistic paste: the key on line 2, after a sentence."""
        return f"This is what I ran with.\nexport ANTHROPIC_API_KEY={self.key}"

    @property
    def escaped(self) -> str:
        """JSON whose one string holds the key with its first letter escaped."""
        return '{\n  "headers": {"x-api-key": "\\u0073' + self.key[1:] + '"}\n}'

    def user(self, role: Role = Role.CONTRIBUTOR) -> User:
        with session_scope(self.engine) as session:
            return make_user(session, role=role)

    def session_auth(self, user: User) -> dict[str, str]:
        return {"Authorization": f"Bearer {LocalIssuer(self.settings).mint(user.auth_subject)}"}

    def refused(self, response: Any, field: str | None = None) -> None:
        self.bodies.append(response.text)
        assert response.status_code == 400, response.text
        error = response.json()["error"]
        assert error["code"] == "secret_detected", response.text
        assert "looks like" in error["message"]
        if field is not None:
            assert error["field"] == field


@pytest.fixture
def world(
    request: pytest.FixtureRequest,
    settings: Settings,
    engine: Engine,
    tmp_path: Path,
    backend: str,
) -> Iterator[World]:
    storage: ObjectStorage
    if backend == "s3":
        storage = S3Storage.from_settings(make_s3_settings(request.getfixturevalue("s3_endpoint")))
    else:
        storage = LocalStorage(tmp_path / "objects")
    settings = settings.model_copy(update={"api_submission_rate_limit": 100})
    ctx = AppContext.from_settings(settings, engine=engine, storage=storage)
    with TestClient(build_api(ctx)) as client:
        yield World(client, engine, storage, settings, ctx)


@pytest.fixture
def log_file(tmp_path: Path) -> Iterator[Path]:
    """Everything the app logs in this process, at DEBUG, for the duration of the test."""
    path = tmp_path / "everything.log"
    handler = logging.FileHandler(path)
    handler.setLevel(logging.DEBUG)
    # The test's own HTTP client logs the URLs it calls; that is this test talking, not the app.
    handler.addFilter(lambda record: not record.name.startswith(_CLIENT_LOGGERS))
    root = logging.getLogger()
    previous = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    yield path
    root.removeHandler(handler)
    root.setLevel(previous)
    handler.close()


def _through_the_submission_api(world: World) -> None:
    user = world.user()
    with session_scope(world.engine) as session:
        _row, token = tokens.create_token(session, user, "ci")
    bearer = {"Authorization": f"Bearer {token}"}
    png = ("shot.png", png_bytes(), "image/png")
    for name in API_TEXT_FIELDS:
        sent = {**FORM, name: world.key if name in SINGLE_LINE else world.text}
        response = world.client.post(
            "/api/v1/tests", data=sent, files=[("files", png)], headers=bearer
        )
        world.refused(response, name)
    response = world.client.post(
        "/api/v1/tests",
        data={**FORM, "settings": world.escaped},
        files=[("files", png)],
        headers=bearer,
    )
    world.refused(response, "settings")
    for filename in (f"{world.key}.png", f"runs/{world.key}/shot.png"):
        upload = ("files", (filename, png_bytes(), "image/png"))
        world.refused(world.client.post("/api/v1/tests", data=FORM, files=[upload], headers=bearer))
    response = world.client.post(
        "/api/v1/tests",
        data=FORM,
        files=[("files", png)],
        headers={**bearer, "Idempotency-Key": world.key},
    )
    world.refused(response)
    # Accepted, but its JSON evidence hides the key behind escapes: both files end blocked.
    accepted = world.client.post(
        "/api/v1/tests",
        data=FORM,
        files=[
            (
                "files",
                ("run.ndjson", ('{"step": 1}\n' + world.escaped.replace("\n", "") + "\n").encode()),
            ),
            (
                "files",
                (
                    "src.zip",
                    zip_bytes({"index.html": b"<p>hi</p>", "cfg.json": world.escaped.encode()}),
                ),
            ),
        ],
        headers={**bearer, "Idempotency-Key": "run-42"},
    )
    world.bodies.append(accepted.text)
    assert accepted.status_code == 202, accepted.text

    draft_id = _draft(world, user)
    response = world.client.post(
        f"/api/v1/tests/{draft_id}/files",
        content=b"bytes",
        headers={**world.session_auth(user), "X-Filename": world.key + ".txt"},
    )
    world.refused(response, "files")


def _draft(world: World, user: User) -> str:
    with session_scope(world.engine) as session:
        return submissions.create_draft(session, user, world.settings).id


@dataclass
class Cases:
    test_id: str
    evidence_id: str
    report_id: str
    review_id: str
    dispute_id: str
    contributor: User
    reviewer: User
    moderator: User
    owner: User


def _cases(world: World) -> Cases:
    contributor, reviewer = world.user(), world.user(Role.REVIEWER)
    moderator, owner = world.user(Role.MODERATOR), world.user(Role.OWNER)
    with session_scope(world.engine) as session:
        test = make_test(session, contributor)
        evidence = make_stored_evidence(session, world.storage, test, png_bytes())
        report = reports.create_report(session, reviewer, test.id, "spam", "", per_hour=9)
        review = make_review(session, test, reviewer)
        dispute = disputes.open_dispute(
            session, contributor, review.id, "Wrong review.", per_hour=9
        )
        ids = (test.id, evidence.id, report.id, review.id, dispute.id)
    return Cases(*ids, contributor, reviewer, moderator, owner)


def _through_the_moderation_api(world: World) -> None:
    cases = _cases(world)
    post = world.client.post
    reviewer, contributor = (
        world.session_auth(cases.reviewer),
        world.session_auth(cases.contributor),
    )
    world.refused(
        post(
            f"/api/v1/tests/{cases.test_id}/reviews",
            json={"score": 50, "reasoning": world.text},
            headers=reviewer,
        ),
        "reasoning",
    )
    world.refused(
        post(
            f"/api/v1/tests/{cases.test_id}/reports",
            json={"reason": "other", "details": world.text},
            headers=contributor,
        ),
        "details",
    )
    world.refused(
        post(
            f"/api/v1/reviews/{cases.review_id}/disputes",
            json={"reason": world.text},
            headers=contributor,
        ),
        "reason",
    )
    base = "/api/v1/moderation"
    decisions = [
        f"{base}/tests/{cases.test_id}/remove",
        f"{base}/tests/{cases.test_id}/restore",
        f"{base}/tests/{cases.test_id}/hold/keep",
        f"{base}/tests/{cases.test_id}/hold/clear",
        f"{base}/evidence/{cases.evidence_id}/block",
        f"{base}/reports/{cases.report_id}/resolve",
        f"{base}/reports/{cases.report_id}/dismiss",
        f"{base}/disputes/{cases.dispute_id}/uphold",
        f"{base}/disputes/{cases.dispute_id}/overturn",
    ]
    moderator, owner = world.session_auth(cases.moderator), world.session_auth(cases.owner)
    for path in decisions:
        world.refused(
            post(path, json={"reason": world.text, "score": 10}, headers=moderator), "reason"
        )
    label = {"kind": "model", "label": "Mystery model", "target": "gpt-5"}
    for path in (f"{base}/labels/map", f"{base}/labels/leave"):
        world.refused(post(path, json={**label, "reason": world.text}, headers=moderator), "reason")
        hidden = {**label, "label": world.key, "reason": "Maps a common label."}
        world.refused(post(path, json=hidden, headers=moderator), "label")
    handle = cases.reviewer.handle
    for action, extra in (("role", {"role": "moderator"}), ("suspend", {}), ("reinstate", {})):
        body = {**extra, "reason": world.text}
        world.refused(post(f"/api/v1/users/{handle}/{action}", json=body, headers=owner), "reason")
        world.bodies.append(
            post(
                f"/api/v1/users/{world.access_key}/{action}",
                json={**extra, "reason": "A fine reason."},
                headers=owner,
            ).text
        )


def _dead_job(world: World) -> int:
    with session_scope(world.engine) as session:
        job = Job(kind="scan_evidence", subject_id="ev1", state=JobState.DEAD, attempts=5)
        session.add(job)
        session.flush()
        assert job.id is not None
        return job.id


def _through_the_services(world: World) -> None:
    """What the pages' states call: sign-in, /me's tokens, the wizard, /operations."""
    settings = world.settings
    with Session(world.engine, expire_on_commit=False) as session:
        for handle, name in (
            ("ada", world.key[:80]),
            (world.access_key, ""),
            (world.access_key.lower(), ""),
        ):
            with pytest.raises(ServiceError) as refused:
                accounts.get_or_create_local_user(session, handle, name, settings)
            assert "looks like" in refused.value.message
        user = accounts.user_for_subject(
            session, "user_canary", settings, handle_hint=world.access_key
        )
        assert user.handle.startswith("user-")
        with pytest.raises(ServiceError):
            tokens.create_token(session, user, world.key[:80])
        test = submissions.create_draft(session, user, settings)
        for name in submissions.DRAFT_FIELDS:
            if name in ("attempts", "source_visibility"):
                continue
            value = world.key if name.endswith("label") or name == "title" else world.text
            with pytest.raises(ServiceError) as wizard:
                submissions.save_draft(session, user, test.id, {name: value})
            assert wizard.value.code == "secret_detected"
    owner = world.user(Role.OWNER)
    job_id = _dead_job(world)
    with Session(world.engine) as session:
        for act in (requeue_job, discard_job):
            with pytest.raises(Invalid):
                act(session, job_id, actor=owner, reason=world.text)
        session.rollback()


def _through_the_cli(world: World, capfd: pytest.CaptureFixture[str]) -> str:
    job_id = str(_dead_job(world))
    handle = world.user().handle
    runs = [
        ["tokens", "create", "--handle", handle, "--name", world.key],
        ["tokens", "create", "--handle", world.access_key, "--create-user"],
        ["tokens", "create", "--handle", world.access_key],
        ["users", "grant-role", world.access_key, "reviewer"],
        ["jobs", "requeue", job_id, "--reason", world.text],
        ["jobs", "discard", job_id, "--reason", world.text],
    ]
    for argv in runs:
        assert cli.main(argv, world.ctx) == 1, argv
    out, err = capfd.readouterr()
    assert "looks like an Anthropic API key" in err
    assert "looks like an AWS access key ID" in err
    return out + err


def _assert_absent(world: World, where: str, data: bytes) -> None:
    lowered = data.lower()
    assert canary_fragment(world.key).lower().encode() not in lowered, where
    assert world.access_key.lower().encode() not in lowered, where


@CASES
def test_a_canary_key_in_every_text_input_is_stored_and_logged_nowhere(
    world: World,
    job_ctx: JobContext,
    log_file: Path,
    capfd: pytest.CaptureFixture[str],
    database_url: str,
) -> None:
    _through_the_submission_api(world)
    _through_the_moderation_api(world)
    _through_the_services(world)
    cli_output = _through_the_cli(world, capfd)
    ctx = JobContext.from_settings(job_ctx.settings, engine=world.engine, storage=world.storage)
    assert "scan_evidence" in drain(ctx)

    with Session(world.engine) as session:
        accepted = session.exec(select(Test).where(col(Test.idempotency_key).is_not(None))).one()
        assert accepted.idempotency_key == hashlib.sha256(b"run-42").hexdigest()
        files = session.exec(select(EvidenceFile).where(EvidenceFile.test_id == accepted.id))
        assert {(f.safe_name, f.state, f.block_code) for f in files} == {
            ("run.ndjson", EvidenceState.BLOCKED, "secret_detected"),
            ("src.zip", EvidenceState.BLOCKED, "secret_detected"),
        }
        job_errors = " ".join(job.last_error_code for job in session.exec(select(Job)))
        assert session.exec(select(Report)).all()  # the clean report from the setup is there
    out, err = capfd.readouterr()
    rows, objects = every_row(world.engine, database_url), every_object(world.storage)
    assert b"Say hi." in rows  # the search does see what was stored
    assert b"evidence/" in objects
    _assert_absent(world, "database", rows)
    _assert_absent(world, "object storage", objects)
    _assert_absent(world, "logs", log_file.read_bytes())
    _assert_absent(world, "process output", (cli_output + out + err).encode())
    _assert_absent(world, "job errors", job_errors.encode())
    _assert_absent(world, "responses", "\n".join(world.bodies).encode())
    assert log_file.stat().st_size > 0  # logging was captured at all
