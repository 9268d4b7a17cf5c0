"""A preview's artifacts and figures follow the ZIP they were derived from.

Rows and objects are written the way the job writes them (no browser needed): the
user-content origin serves the artifacts only while that very ZIP is an approved source
file, and the Test page and comparison groups show only the evaluation of the ZIP approved
now.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select
from starlette.testclient import TestClient

from benchmax.adapters.storage import PREVIEW_PREFIX
from benchmax.adapters.storage.local import LocalStorage
from benchmax.cli.main import main
from benchmax.context import AppContext
from benchmax.models import (
    EvidenceFile,
    EvidenceKind,
    EvidenceState,
    PreviewArtifact,
    PreviewArtifactKind,
    PreviewEvaluation,
    PreviewState,
    Test,
)
from benchmax.services.derived_text import PREVIEW, redaction_counts
from benchmax.services.preview.compare import preview_figures
from benchmax.services.preview.jobs import evaluation_for
from benchmax.services.preview.view import preview_view
from benchmax.services.stored_bytes import put_bytes
from benchmax.settings import Settings
from tests.support.canary import every_object
from tests.support.factories import make_stored_evidence, make_test, png
from tests.support.preview_rows import AXE
from tests.support.preview_sites import WORKING, zip_of
from tests.unit.safety.corpus import canary_key
from usercontent_service.service import create_app

MARKER = "[removed: looked like an Anthropic API key]"
ARTIFACTS = {
    "screenshot.png": (PreviewArtifactKind.SCREENSHOT, "image/png", png()),
    "result.json": (PreviewArtifactKind.RESULT, "application/json", b'{"status": "ok"}'),
}


def _zip(
    session: Session, storage: LocalStorage, test: Test, files: dict[str, str]
) -> EvidenceFile:
    return make_stored_evidence(
        session, storage, test, zip_of(files), kind=EvidenceKind.SOURCE,
        content_type="application/zip", original_name="site.zip", safe_name="site.zip",
    )  # fmt: skip


def _previewed(
    session: Session, storage: LocalStorage, source: EvidenceFile, extra: dict | None = None
) -> list[str]:
    """A finished evaluation of ``source`` with stored artifacts (written as they were before
    the gate: ``extra`` goes into the result as it is); their URLs."""
    evaluation = evaluation_for(session, source.test_id, source)
    evaluation.state = PreviewState.DONE
    evaluation.load_ms, evaluation.console_error_count = 300, 0
    result = json.dumps({"status": "ok", "axe": AXE, "load_ms": 300, **(extra or {})})
    evaluation.result_json = result
    session.add(evaluation)
    urls = []
    files = {**ARTIFACTS, "result.json": (*ARTIFACTS["result.json"][:2], result.encode())}
    for name, (kind, content_type, data) in files.items():
        columns = put_bytes(storage, f"{PREVIEW_PREFIX}{evaluation.id}/{name}", data, content_type)
        artifact = PreviewArtifact(evaluation_id=evaluation.id, kind=kind, **columns)
        session.add(artifact)
        session.flush()
        urls.append(f"/p/{artifact.id}/{name}")
    session.commit()
    return urls


@pytest.fixture
def content(
    settings: Settings, engine: Engine, local_storage: LocalStorage
) -> Iterator[TestClient]:
    with TestClient(create_app(settings, engine=engine, storage=local_storage)) as client:
        yield client


@pytest.mark.parametrize(
    "change",
    [EvidenceState.BLOCKED, EvidenceState.REMOVED, EvidenceState.QUARANTINED, "replaced"],
)
def test_artifacts_404_at_once_when_their_zip_is_no_longer_approved(
    session: Session, local_storage: LocalStorage, content: TestClient, change: str
) -> None:
    test = make_test(session)
    source = _zip(session, local_storage, test, WORKING)
    urls = _previewed(session, local_storage, source)
    for url in urls:
        assert content.get(url).status_code == 200
    if change == "replaced":
        source.sha256 = "f" * 64  # same file row, other bytes: not what was evaluated
    else:
        source.state = EvidenceState(change)
    session.add(source)
    session.commit()
    for url in urls:
        refused = content.get(url)
        assert (refused.status_code, refused.content) == (404, b"Not found\n")


def test_only_the_approved_zips_evaluation_is_shown(
    session: Session, settings: Settings, local_storage: LocalStorage
) -> None:
    local = settings.model_copy(update={"preview_sandbox": "local"})
    test = make_test(session)
    first = _zip(session, local_storage, test, WORKING)
    _previewed(session, local_storage, first)
    assert preview_view(session, local, test.id).status == "done"
    assert preview_figures(session, local, [test.id])[test.id].status == "done"

    # A second ZIP is added and the first blocked: its preview is not the Test's any more.
    _zip(session, local_storage, test, {**WORKING, "extra.txt": "two"})
    first.state = EvidenceState.BLOCKED
    session.add(first)
    session.commit()
    view = preview_view(session, local, test.id)
    assert (view.status, view.screenshot_url) == ("pending", "")
    assert preview_figures(session, local, [test.id])[test.id].status == "pending"


def test_results_stored_before_the_gate_are_rewritten_redacted(
    app_ctx: AppContext, capsys: pytest.CaptureFixture[str]
) -> None:
    """``benchmax preview redact-results``: the row and the served object, counted, once."""
    key = canary_key()
    storage = app_ctx.storage
    assert isinstance(storage, LocalStorage)
    with Session(app_ctx.engine, expire_on_commit=False) as session:
        test = make_test(session)
        source = _zip(session, storage, test, WORKING)
        urls = _previewed(session, storage, source, {"console_errors": [f"oops {key}"]})
        clean = _zip(session, storage, make_test(session), WORKING)
        _previewed(session, storage, clean)
    with TestClient(create_app(app_ctx.settings, engine=app_ctx.engine, storage=storage)) as web:
        assert key.encode() in web.get(urls[1]).content  # as it was served before
        assert main(["preview", "redact-results"], app_ctx) == 0
        assert capsys.readouterr().out.startswith("1 preview results")
        served = web.get(urls[1])
        assert served.status_code == 200
        assert MARKER.encode() in served.content
    assert main(["preview", "redact-results"], app_ctx) == 0
    assert capsys.readouterr().out.startswith("0 preview results")
    assert key[13:45].encode() not in every_object(storage)
    with Session(app_ctx.engine) as session:
        stored = " ".join(session.exec(select(PreviewEvaluation.result_json)).all())
        assert key[13:45] not in stored
        assert redaction_counts(session).total[PREVIEW] == 1
