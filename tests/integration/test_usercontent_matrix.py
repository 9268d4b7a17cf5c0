"""Every Test state, every file state and every kind, by GET, HEAD and Range, on both storages.

Exactly one row of the matrix serves bytes: a public Test with an approved file (and, for a
source ZIP, public source). Every other cell must be byte-for-byte the same 404 as an id that
does not exist, even though the object is present in storage in every cell.
"""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlmodel import Session
from starlette.testclient import TestClient

from benchmax.adapters.storage import ObjectStorage
from benchmax.adapters.storage.local import LocalStorage
from benchmax.adapters.storage.s3 import S3Storage
from benchmax.db import make_engine
from benchmax.models import EvidenceKind, EvidenceState, SourceVisibility, TestState
from tests.support.factories import make_stored_evidence, make_test, make_user
from tests.support.s3server import make_s3_settings
from usercontent_service.service import create_app

# (kind, stored content type, the Test's source visibility)
VARIANTS = {
    "image": (EvidenceKind.IMAGE, "image/png", SourceVisibility.PRIVATE),
    "video": (EvidenceKind.VIDEO, "video/mp4", SourceVisibility.PRIVATE),
    "text": (EvidenceKind.TEXT, "text/plain", SourceVisibility.PRIVATE),
    "source-public": (EvidenceKind.SOURCE, "application/zip", SourceVisibility.PUBLIC),
    "source-private": (EvidenceKind.SOURCE, "application/zip", SourceVisibility.PRIVATE),
}
CELLS = list(itertools.product(TestState, EvidenceState, VARIANTS))
COOKIES = {"__session": "app-session-token", "__client_uat": "1"}


def should_serve(test_state: TestState, evidence_state: EvidenceState, variant: str) -> bool:
    return (
        test_state == TestState.PUBLIC
        and evidence_state == EvidenceState.APPROVED
        and variant != "source-private"
    )


@dataclass
class World:
    client: TestClient
    files: dict[tuple[TestState, EvidenceState, str], tuple[str, bytes]]


def _populate(session: Session, storage: ObjectStorage) -> dict:
    contributor = make_user(session)
    files = {}
    for test_state, evidence_state, variant in CELLS:
        kind, content_type, visibility = VARIANTS[variant]
        test = make_test(session, contributor, state=test_state, source_visibility=visibility)
        data = f"{test_state}/{evidence_state}/{variant} ".encode() * 3
        evidence = make_stored_evidence(
            session,
            storage,
            test,
            data,
            kind=kind,
            content_type=content_type,
            state=evidence_state,
            safe_name=f"{variant}.bin",
        )
        files[test_state, evidence_state, variant] = (evidence.id, data)
    session.commit()
    return files


@pytest.fixture(scope="module", params=["local", "s3"])
def world(
    request: pytest.FixtureRequest,
    sqlite_template: Path,
    s3_endpoint: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[World]:
    directory = tmp_path_factory.mktemp(f"matrix-{request.param}")
    shutil.copyfile(sqlite_template, directory / "benchmax.db")
    engine = make_engine(f"sqlite:///{directory / 'benchmax.db'}")
    settings = make_s3_settings(s3_endpoint)
    storage: ObjectStorage = (
        S3Storage.from_settings(settings)
        if request.param == "s3"
        else LocalStorage(directory / "objects")
    )
    with Session(engine, expire_on_commit=False) as session:
        files = _populate(session, storage)
    app = create_app(settings, engine=engine, storage=storage)
    with TestClient(app, cookies=COOKIES) as client:
        yield World(client, files)
    engine.dispose()


def _refusal(client: TestClient, method: str, headers: dict[str, str] | None = None) -> tuple:
    response = client.request(method, "/e/zzzzzzzzzzzzzzzz/none.png", headers=headers)
    return response.status_code, response.content, response.headers


@pytest.mark.parametrize(
    ("test_state", "evidence_state", "variant"),
    CELLS,
    ids=[f"{t}-{e}-{v}" for t, e, v in CELLS],
)
def test_matrix(
    world: World, test_state: TestState, evidence_state: EvidenceState, variant: str
) -> None:
    evidence_id, data = world.files[test_state, evidence_state, variant]
    url = f"/e/{evidence_id}/{variant}.bin"
    client = world.client

    get = client.get(url)
    head = client.head(url)
    ranged = client.get(url, headers={"Range": "bytes=2-9"})

    for response in (get, head, ranged):
        assert "set-cookie" not in response.headers
    if should_serve(test_state, evidence_state, variant):
        assert (get.status_code, get.content) == (200, data)
        assert (head.status_code, head.content) == (200, b"")
        assert head.headers["content-length"] == str(len(data))
        assert (ranged.status_code, ranged.content) == (206, data[2:10])
        assert ranged.headers["content-range"] == f"bytes 2-9/{len(data)}"
    else:
        refusal = _refusal(client, "GET")
        assert refusal[0] == 404
        assert (get.status_code, get.content, get.headers) == refusal
        assert (head.status_code, head.content, head.headers) == _refusal(client, "HEAD")
        assert (ranged.status_code, ranged.content, ranged.headers) == _refusal(
            client, "GET", {"Range": "bytes=2-9"}
        )


def test_matrix_serves_exactly_the_expected_cells() -> None:
    """Guards the matrix itself: four kinds of file serve in the one public, approved row."""
    served = [cell for cell in CELLS if should_serve(*cell)]

    assert len(CELLS) == len(TestState) * len(EvidenceState) * len(VARIANTS)
    assert served == [
        (TestState.PUBLIC, EvidenceState.APPROVED, variant)
        for variant in ("image", "video", "text", "source-public")
    ]
