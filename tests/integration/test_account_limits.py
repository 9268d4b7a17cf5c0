"""Per-account caps on open drafts and held bytes, through the services and the JSON API."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, func, select
from starlette.testclient import TestClient

from benchmax.adapters.storage.local import LocalStorage
from benchmax.api import build_api
from benchmax.models import EvidenceFile, Test, TestState, User
from benchmax.services import submissions
from benchmax.services.errors import ServiceError
from benchmax.settings import Settings
from tests.integration.test_submissions_api import Api
from tests.support.submission_helpers import COMPLETE, contributor, draft_with

pytestmark = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)

CAP_BYTES = 4096


@pytest.fixture
def caps(settings: Settings) -> Settings:
    """This test's settings with small caps: two open drafts, ``CAP_BYTES`` held."""
    return settings.model_copy(
        update={"max_open_drafts": 2, "max_quarantine_bytes_per_account": CAP_BYTES}
    )


@pytest.fixture
def storage(tmp_path: Path) -> LocalStorage:
    return LocalStorage(tmp_path / "objects")


def _count_drafts(engine: Engine, user: User) -> int:
    with Session(engine) as session:
        return session.exec(
            select(func.count())
            .select_from(Test)
            .where(Test.contributor_id == user.id, Test.state == TestState.DRAFT)
        ).one()


def test_open_drafts_are_capped_per_account_and_submitting_frees_a_place(
    caps: Settings, engine: Engine, storage: LocalStorage
) -> None:
    user, other = contributor(engine), contributor(engine)
    first = draft_with(
        engine, storage, user, {**COMPLETE, "output_text": "ok"}, submit=False, settings=caps
    )
    draft_with(engine, storage, user, COMPLETE, submit=False, settings=caps)
    with Session(engine) as session, pytest.raises(ServiceError) as refused:
        submissions.create_draft(session, user, caps)
    assert (refused.value.code, refused.value.status) == ("too_many_drafts", 409)
    assert "2 open drafts" in refused.value.message
    assert _count_drafts(engine, user) == 2
    # Another account is not affected, and a submitted draft no longer counts.
    draft_with(engine, storage, other, COMPLETE, submit=False, settings=caps)
    with Session(engine) as session:
        submissions.submit(session, user, first)
        session.commit()
    draft_with(engine, storage, user, COMPLETE, submit=False, settings=caps)
    assert _count_drafts(engine, user) == 2


def test_held_bytes_are_capped_per_account_across_drafts(
    caps: Settings, engine: Engine, storage: LocalStorage
) -> None:
    user = contributor(engine)
    draft_with(engine, storage, user, COMPLETE, {"a.txt": b"a" * 3000}, submit=False, settings=caps)
    second = draft_with(engine, storage, user, COMPLETE, submit=False, settings=caps)
    for declared in (2000, None):  # told up front, or found out while streaming
        with Session(engine) as session, pytest.raises(ServiceError) as refused:
            submissions.add_file(
                session,
                storage,
                user,
                second,
                "b.txt",
                [b"b" * 2000],
                declared_size=declared,
                settings=caps,
            )
        assert (refused.value.code, refused.value.status) == ("account_storage_full", 413)
        assert "MiB one account may hold" in refused.value.message
    with Session(engine) as session:
        files = session.exec(select(EvidenceFile).where(EvidenceFile.test_id == second)).all()
    assert files == []
    assert len([path for path in storage.root.rglob("*") if path.is_file()]) == 1
    # What is left fits; another account has its own allowance.
    with Session(engine) as session:
        submissions.add_file(session, storage, user, second, "c.txt", [b"c" * 1000], settings=caps)
        session.commit()
    draft_with(
        engine,
        storage,
        contributor(engine),
        COMPLETE,
        {"d.txt": b"d" * 4000},
        submit=False,
        settings=caps,
    )


def test_the_api_answers_a_full_account_with_a_json_413_and_submits_past_the_draft_cap(
    caps: Settings,
    engine: Engine,
    tmp_path: Path,
    session_headers: Callable[[User], dict[str, str]],
) -> None:
    api = Api(engine, caps, tmp_path)
    api_client = TestClient(build_api(api.ctx))
    user, token = api.user_token()
    draft_with(
        engine, api.storage, user, COMPLETE, {"a.txt": b"a" * 3900}, submit=False, settings=caps
    )
    second = draft_with(engine, api.storage, user, COMPLETE, submit=False, settings=caps)
    headers = {**session_headers(user), "X-Filename": "more.txt"}
    answer = api_client.post(f"/api/v1/tests/{second}/files", content=b"x" * 200, headers=headers)
    assert answer.status_code == 413
    assert answer.json()["error"]["code"] == "account_storage_full"
    assert answer.headers["content-type"].startswith("application/json")
    # The submission API submits the draft in the transaction that creates it, so the cap
    # on open drafts (two, reached) does not stop it; its files' bytes count all the same.
    answer = api.post(token, files=[("files", ("big.txt", b"y" * 500))])
    assert answer.status_code == 413
    assert answer.json()["error"]["code"] == "account_storage_full"
    answer = api.post(token, files=[("files", ("small.txt", b"y" * 50))])
    assert answer.status_code == 202, answer.text
    assert _count_drafts(engine, user) == 2
