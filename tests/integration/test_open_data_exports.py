"""Open-data exports, end to end: written from the database, published to object storage,
downloaded from the user-content origin and checked against the manifest.

Removed Tests, blocked and removed files and private sources never appear; every file's
bytes hash to what the manifest says; a formula in any text cell is neutralised; nothing
but the current export's listed files can be fetched."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine
from sqlmodel import Session
from starlette.testclient import TestClient

from benchmax.adapters.storage import ObjectStorage
from benchmax.api import build_api
from benchmax.context import AppContext
from benchmax.models import EvidenceKind, EvidenceState, SourceVisibility, Test, TestState
from benchmax.services.exports import ExportContext, generate_export
from benchmax.services.exports.csv_cells import safe_cell
from benchmax.settings import CoreSettings, Settings
from tests.support.factories import (
    make_evidence,
    make_review,
    make_stored_evidence,
    make_test,
    make_user,
)
from usercontent_service.service import create_app

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
CTX = ExportContext("http://localhost:3000", "http://127.0.0.1:3001")
FORMULAS = ["=HYPERLINK(\"http://x\")", "+1+1", "-2+3", "@SUM(A1)", "\tx", "\r=1", "  =1",
            "\uff1dcmd"]  # fmt: skip


@pytest.fixture
def usercontent(
    engine: Engine, object_storage: ObjectStorage, settings: CoreSettings
) -> Iterator[TestClient]:
    with TestClient(create_app(settings, engine, object_storage)) as client:
        yield client


def _seed(session: Session, storage: ObjectStorage) -> dict[str, str]:
    ada = make_user(session, handle="ada")
    reviewer = make_user(session, handle="rev")
    public = make_test(session, ada, title=FORMULAS[0], prompt=FORMULAS[1],
                       notes="\n".join(FORMULAS), settings_text=FORMULAS[3],
                       source_visibility=SourceVisibility.PRIVATE,
                       gateway_call_id="gen-1733140000-abc")  # fmt: skip
    shown = make_stored_evidence(session, storage, public, b"shown log", kind=EvidenceKind.TEXT)
    private_zip = make_stored_evidence(
        session, storage, public, b"PK private", kind=EvidenceKind.SOURCE,
        safe_name="private-source.zip",
    )  # fmt: skip
    blocked = make_evidence(session, public, state=EvidenceState.BLOCKED, safe_name="bad.png")
    gone = make_evidence(session, public, state=EvidenceState.REMOVED, safe_name="gone.txt")
    removed = make_test(session, ada, prompt="REMOVED-PROMPT", state=TestState.REMOVED)
    removed_file = make_stored_evidence(session, storage, removed, b"x", kind=EvidenceKind.TEXT)
    removed_review = make_review(session, removed, reviewer)
    draft = make_test(session, ada, prompt="DRAFT-PROMPT", state=TestState.DRAFT,
                      published_at=None)  # fmt: skip
    first = make_review(session, public, reviewer, score=40, reasoning=FORMULAS[4] * 10)
    correction = make_review(session, public, reviewer, score=60, corrects_review_id=first.id)
    session.commit()
    return {
        "public": public.id, "shown": shown.id, "private_zip": private_zip.id,
        "blocked": blocked.id, "gone": gone.id, "removed": removed.id,
        "removed_file": removed_file.id, "removed_review": removed_review.id,
        "draft": draft.id, "first": first.id, "correction": correction.id,
    }  # fmt: skip


def _download(client: TestClient, name: str) -> bytes:
    response = client.get(f"/exports/{name}")
    assert response.status_code == 200, name
    assert "set-cookie" not in response.headers
    assert response.headers["content-disposition"].startswith("attachment")
    return response.content


@BOTH
def test_an_export_holds_public_rows_only_and_matches_its_manifest(
    session: Session, object_storage: ObjectStorage, usercontent: TestClient
) -> None:
    ids = _seed(session, object_storage)
    manifest = generate_export(session, object_storage, CTX, "Terms apply.")

    listed = json.loads(_download(usercontent, "manifest.json"))
    assert listed["counts"] == {"tests": 1, "evidence": 1, "reviews": 2}
    assert listed["licence"] == "Terms apply."
    assert listed["generation"] == manifest.generation
    everything = b""
    for entry in listed["files"]:
        data = _download(usercontent, entry["name"])
        assert hashlib.sha256(data).hexdigest() == entry["sha256"]
        assert len(data) == entry["bytes"]
        everything += data
    for hidden in ("private_zip", "blocked", "gone", "removed", "removed_file",
                   "removed_review", "draft"):  # fmt: skip
        assert ids[hidden].encode() not in everything, hidden
    for secretish in (b"REMOVED-PROMPT", b"DRAFT-PROMPT", b"private-source", b"quarantine/",
                      b"scan_report"):  # fmt: skip
        assert secretish not in everything

    tests = [json.loads(line) for line in _download(usercontent, "tests.jsonl").splitlines()]
    assert [t["id"] for t in tests] == [ids["public"]]
    assert tests[0]["setup_label"] == "Declared by contributor — not independently verified"
    assert tests[0]["prompt"] == FORMULAS[1]  # JSON keeps the text exactly
    public = session.get(Test, ids["public"])  # where it came from, and the group it is in
    assert public is not None
    key = public.prompt_key
    assert key
    assert (tests[0]["gateway_call_id"], tests[0]["prompt_key"]) == ("gen-1733140000-abc", key)
    assert tests[0]["group_url"] == f"{CTX.app_origin}/prompts/{key}"
    evidence = [json.loads(x) for x in _download(usercontent, "evidence.jsonl").splitlines()]
    assert evidence[0]["url"].startswith("http://127.0.0.1:3001/e/" + ids["shown"])
    reviews = {
        r["id"]: r for r in map(json.loads, _download(usercontent, "reviews.jsonl").splitlines())
    }
    assert reviews[ids["first"]]["superseded"] is True
    assert reviews[ids["correction"]]["corrects_review_id"] == ids["first"]


@BOTH
def test_csv_cells_never_start_a_formula(
    session: Session, object_storage: ObjectStorage, usercontent: TestClient
) -> None:
    _seed(session, object_storage)
    generate_export(session, object_storage, CTX, "Terms apply.")
    for name in ("tests.csv", "evidence.csv", "reviews.csv"):
        text = _download(usercontent, name).decode()
        for row in csv.reader(io.StringIO(text)):
            for cell in row:
                assert cell.lstrip(" ")[:1] not in set("=+-@\t\r\uff1d"), (name, cell)
    rows = list(csv.DictReader(io.StringIO(_download(usercontent, "tests.csv").decode())))
    assert rows[0]["title"] == "'" + FORMULAS[0]
    assert rows[0]["notes"].startswith("'=")


@pytest.mark.parametrize("value", [*FORMULAS, "\n=1"])
def test_every_formula_trigger_is_neutralised(value: str) -> None:
    assert str(safe_cell(value)).startswith("'")


def test_numbers_and_plain_text_are_left_alone() -> None:
    assert safe_cell(-3) == -3
    assert safe_cell("a-b") == "a-b"
    assert safe_cell(None) == ""


def test_only_the_current_exports_listed_files_are_served(
    session: Session, object_storage: ObjectStorage, usercontent: TestClient
) -> None:
    assert usercontent.get("/exports/tests.csv").status_code == 404  # nothing published yet
    _seed(session, object_storage)
    first = generate_export(session, object_storage, CTX, "Terms apply.")
    second = generate_export(session, object_storage, CTX, "Terms apply.")
    third = generate_export(session, object_storage, CTX, "Terms apply.")
    keys = {info.key for info in object_storage.list("exports/")}
    assert not any(first.generation in key for key in keys), "old generations are deleted"
    assert any(second.generation in key for key in keys), "the previous one is kept"
    for path in ("/exports/current.json", f"/exports/{second.generation}", "/exports/..%2Fx",
                 "/exports/tests.parquet", "/exports/TESTS.CSV", "/exports/"):  # fmt: skip
        response = usercontent.get(path)
        assert response.status_code == 404, path
        assert response.content == b"Not found\n"
    assert usercontent.get("/exports/tests.csv").status_code == 200
    # A stored file that no longer matches the manifest is refused, not served.
    object_storage.put(f"exports/{third.generation}/tests.csv", [b"tampered"])
    assert usercontent.get("/exports/tests.csv").status_code == 404
    # An unreadable pointer fails closed.
    object_storage.put("exports/current.json", [b"{not json"])
    assert usercontent.get("/exports/tests.jsonl").status_code == 404


def test_the_api_lists_the_export_with_user_content_urls(
    settings: Settings, engine: Engine, session: Session, object_storage: ObjectStorage,
) -> None:  # fmt: skip
    ctx = AppContext.from_settings(settings, engine=engine, storage=object_storage)
    api_client = TestClient(build_api(ctx))
    assert api_client.get("/api/v1/exports").json() == {
        "current": None, "files": [], "manifest_url": None,
    }  # fmt: skip
    assert "No export has been published yet" in api_client.get("/data").text
    _seed(session, object_storage)
    manifest = generate_export(session, object_storage, CTX, "Terms <apply> & more.")
    body = api_client.get("/api/v1/exports").json()
    assert body["current"]["generation"] == manifest.generation
    origin = settings.usercontent_origin
    assert {f["url"] for f in body["files"]} == {
        f"{origin}/exports/{f.name}" for f in manifest.files
    }
    page = api_client.get("/data").text
    assert f"{origin}/exports/tests.csv" in page
    assert "Terms &lt;apply&gt; &amp; more." in page
