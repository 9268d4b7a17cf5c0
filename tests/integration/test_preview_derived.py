"""What the preview derives from a contributor's site is checked, follows its source and is
measured where the page cannot reach.

Generated sites run through the real job on the local sandbox (bubblewrap, Chromium):

* a page that assembles a key at run time (no file holds it whole) and puts it in the
  console, an uncaught exception, its title, a failed and a blocked request's URL and an
  element that fails an accessibility rule: the key is nowhere in the database, storage,
  logs or served bytes, and the marker is what readers see;
* blocking that ZIP takes every artifact derived from it off the user-content origin at once;
* a page that pins ``window.axe`` and hides its service-worker attempts is reported as it is.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select
from starlette.testclient import TestClient

from benchmax.adapters.sandbox import EVALUATOR_DIR
from benchmax.adapters.storage.local import LocalStorage
from benchmax.models import (
    EvidenceFile,
    EvidenceKind,
    EvidenceState,
    PreviewArtifact,
    PreviewEvaluation,
    PreviewState,
    Test,
    TestState,
)
from benchmax.services.derived_text import PREVIEW, redaction_counts
from benchmax.services.jobs import JobContext
from benchmax.services.operations.dashboard import dashboard
from benchmax.services.preview import jobs as preview_jobs
from benchmax.services.preview.view import preview_view
from tests.support.canary import every_object, every_row
from tests.support.preview_sites import FORGER, leaky_site, publish_site
from tests.unit.safety.corpus import canary_key
from usercontent_service.service import create_app

pytestmark = [pytest.mark.timeout(240), pytest.mark.sandbox]

MARKER = "[removed: looked like an Anthropic API key]"


@pytest.fixture
def ctx(pipeline_ctx: JobContext) -> JobContext:
    settings = pipeline_ctx.settings.model_copy(
        update={"preview_sandbox": "local", "job_lease_seconds": 90, "preview_timeout_seconds": 40}
    )
    return JobContext.from_settings(
        settings, engine=pipeline_ctx.engine, storage=pipeline_ctx.storage
    )


@pytest.fixture
def content(ctx: JobContext, local_storage: LocalStorage) -> Iterator[TestClient]:
    app = create_app(ctx.settings, engine=ctx.engine, storage=local_storage)
    with TestClient(app) as client:
        yield client


def _evaluation(engine: Engine, test_id: str) -> PreviewEvaluation:
    with Session(engine) as session:
        return session.exec(
            select(PreviewEvaluation).where(PreviewEvaluation.test_id == test_id)
        ).one()


def _urls(engine: Engine, evaluation_id: str) -> dict[str, str]:
    with Session(engine) as session:
        rows = session.exec(
            select(PreviewArtifact).where(PreviewArtifact.evaluation_id == evaluation_id)
        ).all()
    return {row.kind: f"/p/{row.id}/{row.storage_key.rsplit('/', 1)[-1]}" for row in rows}


def _strings(value: Any) -> Iterator[str]:
    """Every string in a result, keys included, however deep: no per-field list to forget."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def test_a_key_the_page_assembles_is_stored_served_and_logged_nowhere(
    ctx: JobContext,
    session: Session,
    local_storage: LocalStorage,
    content: TestClient,
    caplog: pytest.LogCaptureFixture,
    database_url: str,
) -> None:
    key = canary_key()
    fragment = key[13:45]
    test = publish_site(session, local_storage, leaky_site(key))
    with caplog.at_level(logging.DEBUG):
        preview_jobs.evaluate_preview(ctx, test.id)

    evaluation = _evaluation(ctx.engine, test.id)
    assert evaluation.state == PreviewState.DONE, evaluation.error_code
    result = json.loads(evaluation.result_json)
    strings = list(_strings(result))
    assert not [text for text in strings if fragment in text]
    # Everywhere the page put it, the marker stands instead.
    assert any(MARKER in text for text in result["console_errors"])
    assert any(text.startswith("Error: boom " + MARKER) for text in result["console_errors"])
    assert result["title"] == f"Demo {MARKER}"
    assert MARKER in result["blocked_requests"][0]
    assert any(MARKER in failed["url"] for failed in result["failed_requests"])
    (image_alt,) = [v for v in result["axe"]["violations"] if v["id"] == "image-alt"]
    assert image_alt["sample"][0]["target"] == f"#{MARKER}"
    assert image_alt["sample"][0]["html"].count(MARKER) == 2
    # Every string is cut short, after redaction.
    assert max(len(text) for text in strings) <= preview_jobs.DERIVED_TEXT_CHARS

    # Served bytes: the public result.json is the redacted one; screenshot and video as well.
    urls = _urls(ctx.engine, evaluation.id)
    served = b""
    for url in urls.values():
        response = content.get(url)
        assert response.status_code == 200
        served += response.content
    assert fragment.encode() not in served
    assert MARKER.encode() in content.get(urls["result"]).content

    # The Test page shows the marker; /operations counts what was removed.
    with Session(ctx.engine) as reading:
        view = preview_view(reading, ctx.settings, test.id)
        counts = redaction_counts(reading)
        board = dashboard(reading, ctx.storage)
    assert any(MARKER in text for text in view.console_errors)
    assert counts.today[PREVIEW] >= 7
    assert board.redactions.today[PREVIEW] == counts.today[PREVIEW]

    assert fragment not in caplog.text
    assert fragment.encode() not in every_row(ctx.engine, database_url)
    assert fragment.encode() not in every_object(local_storage)

    # Derived follows its source: blocking the ZIP takes every artifact down at once, while
    # the Test itself stays public.
    with Session(ctx.engine) as writing:
        (source,) = writing.exec(
            select(EvidenceFile).where(
                EvidenceFile.test_id == test.id, EvidenceFile.kind == EvidenceKind.SOURCE
            )
        ).all()
        source.state = EvidenceState.BLOCKED
        writing.add(source)
        writing.commit()
    for url in urls.values():
        refused = content.get(url)
        assert refused.status_code == 404
        assert refused.content == b"Not found\n"
    with Session(ctx.engine) as reading:
        assert reading.get(Test, test.id).state == TestState.PUBLIC  # type: ignore[union-attr]
        assert preview_view(reading, ctx.settings, test.id).status == "none"


def test_a_page_cannot_forge_what_benchmax_measures(
    ctx: JobContext, session: Session, local_storage: LocalStorage
) -> None:
    test = publish_site(session, local_storage, FORGER)
    preview_jobs.evaluate_preview(ctx, test.id)
    evaluation = _evaluation(ctx.engine, test.id)
    assert evaluation.state == PreviewState.DONE, evaluation.error_code
    result = json.loads(evaluation.result_json)
    pinned = json.loads((EVALUATOR_DIR / "node_modules/axe-core/package.json").read_text())
    assert result["axe"]["version"] == pinned["version"]
    assert "image-alt" in {v["id"] for v in result["axe"]["violations"]}
    # One attempt through the refusal, one through another frame's prototype.
    assert result["service_worker_attempts"] == 2
    with Session(ctx.engine) as reading:
        view = preview_view(reading, ctx.settings, test.id)
    assert view.accessibility.endswith(f"axe-core {pinned['version']}")
    assert "99.0.0" not in view.accessibility
