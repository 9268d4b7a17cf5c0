"""The automated preview end to end on the local sandbox: generated ZIPs through the real job
handler, bubblewrap and Chromium, artifacts in storage and served by the user-content origin.

Each site is evaluated once (about ten seconds each on two cores); the checks on one site
share its evaluation.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select
from starlette.testclient import TestClient

from benchmax.adapters.storage.local import LocalStorage
from benchmax.models import (
    Job,
    PreviewArtifact,
    PreviewEvaluation,
    PreviewState,
    SourceVisibility,
    Test,
    TestState,
)
from benchmax.services.errors import RateLimited
from benchmax.services.jobs import JobContext
from benchmax.services.preview import jobs as preview_jobs
from benchmax.services.preview.fair import MAX_ATTEMPTS
from benchmax.services.preview.view import preview_view, retry_preview
from tests.support.preview_sites import INFINITE, MISBEHAVING, NO_INDEX, WORKING, publish_site
from usercontent_service.service import create_app

pytestmark = [pytest.mark.timeout(240), pytest.mark.sandbox]


@pytest.fixture
def ctx(pipeline_ctx: JobContext) -> JobContext:
    settings = pipeline_ctx.settings.model_copy(
        update={"preview_sandbox": "local", "job_lease_seconds": 90, "preview_timeout_seconds": 40}
    )
    ctx = JobContext.from_settings(
        settings, engine=pipeline_ctx.engine, storage=pipeline_ctx.storage
    )
    return ctx


@pytest.fixture
def content(ctx: JobContext, local_storage: LocalStorage) -> Iterator[TestClient]:
    app = create_app(ctx.settings, engine=ctx.engine, storage=local_storage)
    with TestClient(app) as client:
        yield client


def _evaluation(engine: Engine, test_id: str) -> PreviewEvaluation:
    with Session(engine) as session:
        found = session.exec(
            select(PreviewEvaluation).where(PreviewEvaluation.test_id == test_id)
        ).one()
        return found


def _artifacts(engine: Engine, evaluation_id: str) -> dict[str, PreviewArtifact]:
    with Session(engine) as session:
        rows = session.exec(
            select(PreviewArtifact).where(PreviewArtifact.evaluation_id == evaluation_id)
        ).all()
        return {row.kind: row for row in rows}


def _url(artifact: PreviewArtifact) -> str:
    return f"/p/{artifact.id}/{artifact.storage_key.rsplit('/', 1)[-1]}"


def test_working_site_is_previewed_and_removal_hides_it(
    ctx: JobContext, session: Session, local_storage: LocalStorage, content: TestClient
) -> None:
    test = publish_site(session, local_storage, WORKING, SourceVisibility.PRIVATE)
    preview_jobs.evaluate_preview(ctx, test.id)

    evaluation = _evaluation(ctx.engine, test.id)
    assert evaluation.state == PreviewState.DONE, evaluation.error_code
    assert evaluation.template == "browser-web-v1"
    assert evaluation.template_hash == preview_jobs.current_template_hash()
    assert evaluation.console_error_count == 0
    result = json.loads(evaluation.result_json)
    assert result["schema"] == "benchmax.preview.result/1"
    assert result["screenshot"]["blank"] is False
    assert result["axe"]["version"]
    assert isinstance(result["axe"]["violations"], list)
    assert result["blocked_request_count"] == 0
    assert result["fps"] > 0
    assert result["summary"]

    artifacts = _artifacts(ctx.engine, evaluation.id)
    assert set(artifacts) == {"screenshot", "video", "result"}
    shot = content.get(_url(artifacts["screenshot"]))
    assert shot.status_code == 200
    assert shot.content.startswith(b"\x89PNG")
    assert shot.headers["content-type"] == "image/png"
    assert content.get(_url(artifacts["video"])).status_code == 200

    # The page's view: done, artifact URLs on the user-content origin.
    with Session(ctx.engine) as reading:
        view = preview_view(reading, ctx.settings, test.id)
    assert view.status == "done"
    assert view.screenshot_url.startswith(ctx.settings.usercontent_origin + "/p/")

    # Run again: idempotent per (Test, ZIP, template), nothing re-evaluated.
    preview_jobs.evaluate_preview(ctx, test.id)
    assert _evaluation(ctx.engine, test.id).finished_at == evaluation.finished_at

    with Session(ctx.engine) as writing:
        row = writing.get(Test, test.id)
        assert row is not None
        row.state = TestState.REMOVED
        writing.add(row)
        writing.commit()
    for artifact in artifacts.values():
        refused = content.get(_url(artifact))
        assert refused.status_code == 404
        assert refused.content == b"Not found\n"


def test_outside_requests_service_worker_and_console_error_are_reported(
    ctx: JobContext, session: Session, local_storage: LocalStorage
) -> None:
    test = publish_site(session, local_storage, MISBEHAVING)
    preview_jobs.evaluate_preview(ctx, test.id)

    evaluation = _evaluation(ctx.engine, test.id)
    assert evaluation.state == PreviewState.DONE, evaluation.error_code
    result = json.loads(evaluation.result_json)
    blocked = " ".join(result["blocked_requests"])
    assert "203.0.113.9" in blocked
    assert "tracker.invalid" in blocked
    assert result["service_worker_attempts"] >= 1
    assert evaluation.console_error_count == 1
    assert result["console_errors"] == ["boom <b>not markup</b>"]
    checks = {check["id"]: check["passed"] for check in result["checks"]}
    assert checks["no_outside_requests"] is False
    assert checks["no_console_errors"] is False
    with Session(ctx.engine) as reading:
        view = preview_view(reading, ctx.settings, test.id)
    assert view.console_errors == ["boom <b>not markup</b>"]  # text; the page escapes it


def test_infinite_loop_is_bounded_and_the_test_stays_public(
    ctx: JobContext, session: Session, local_storage: LocalStorage
) -> None:
    quick = ctx.settings.model_copy(update={"preview_timeout_seconds": 15})
    bounded = JobContext.from_settings(quick, engine=ctx.engine, storage=local_storage)
    test = publish_site(session, local_storage, INFINITE)
    preview_jobs.evaluate_preview(bounded, test.id)

    evaluation = _evaluation(ctx.engine, test.id)
    assert evaluation.state == PreviewState.FAILED
    assert evaluation.reader_reason == "the preview failed"
    assert evaluation.error_code in ("timeout", "page_timeout")
    assert json.loads(evaluation.result_json)["detail"]  # for owners on /operations
    assert evaluation.duration_ms is not None
    assert evaluation.duration_ms < 40_000
    with Session(ctx.engine) as reading:
        row = reading.get(Test, test.id)
        assert row is not None
        assert row.state == TestState.PUBLIC
        view = preview_view(reading, ctx.settings, test.id, viewer_id=row.contributor_id)
        stranger = preview_view(reading, ctx.settings, test.id, viewer_id="someone-else")
    assert view.status == "unavailable"
    assert view.can_retry
    assert not stranger.can_retry

    # The contributor's retry: the same row goes back to pending, limited per day.
    limited = ctx.settings.model_copy(update={"preview_retry_daily_limit": 1})
    with Session(ctx.engine) as writing:
        retry_preview(writing, limited, row.contributor_id, test.id)
        writing.commit()
    assert _evaluation(ctx.engine, test.id).state == PreviewState.PENDING
    with Session(ctx.engine) as writing:
        again = writing.get(PreviewEvaluation, evaluation.id)
        assert again is not None
        again.state = PreviewState.FAILED
        writing.add(again)
        writing.commit()
        with pytest.raises(RateLimited):
            retry_preview(writing, limited, row.contributor_id, test.id)


def test_zip_without_root_index_is_not_applicable(
    ctx: JobContext, session: Session, local_storage: LocalStorage
) -> None:
    test = publish_site(session, local_storage, NO_INDEX)
    preview_jobs.evaluate_preview(ctx, test.id)
    evaluation = _evaluation(ctx.engine, test.id)
    assert evaluation.state == PreviewState.NOT_APPLICABLE
    assert evaluation.reader_reason == "this ZIP has no index.html at its root"
    assert _artifacts(ctx.engine, evaluation.id).keys() == {"result"}


def test_budget_spent_defers_to_the_next_day(
    ctx: JobContext, session: Session, local_storage: LocalStorage
) -> None:
    spent = ctx.settings.model_copy(update={"preview_daily_budget": 0})
    broke = JobContext.from_settings(spent, engine=ctx.engine, storage=local_storage)
    test = publish_site(session, local_storage, WORKING)
    preview_jobs.evaluate_preview(broke, test.id)
    with Session(ctx.engine) as reading:
        ran = reading.exec(select(PreviewEvaluation).where(PreviewEvaluation.test_id == test.id))
        assert all(row.state == PreviewState.PENDING for row in ran)
        waiting = reading.exec(
            select(Job).where(Job.kind == preview_jobs.PREVIEW_EVALUATE, Job.subject_id == test.id)
        ).all()
    assert len(waiting) == 1
    assert (waiting[0].next_attempt_at - waiting[0].created_at).total_seconds() > 60


def test_previews_off_say_so(
    ctx: JobContext, session: Session, local_storage: LocalStorage
) -> None:
    off = ctx.settings.model_copy(update={"preview_sandbox": "off"})
    test = publish_site(session, local_storage, WORKING)
    with Session(ctx.engine) as reading:
        view = preview_view(reading, off, test.id)
    assert view.status == "unavailable"
    assert view.reason == "previews are not enabled on this instance"


def test_publication_queues_the_preview_and_never_waits_for_it(
    ctx: JobContext, session: Session, local_storage: LocalStorage
) -> None:
    from benchmax.services import pipeline

    for sandbox, expected in (("local", 1), ("off", 0)):
        chosen = ctx.settings.model_copy(update={"preview_sandbox": sandbox})
        publishing = JobContext.from_settings(chosen, engine=ctx.engine, storage=local_storage)
        test = publish_site(session, local_storage, WORKING)
        with Session(ctx.engine) as writing:
            row = writing.get(Test, test.id)
            assert row is not None
            row.state = TestState.PROCESSING
            writing.add(row)
            writing.commit()
        pipeline.publish_test(publishing, test.id)
        with Session(ctx.engine) as reading:
            published = reading.get(Test, test.id)
            assert published is not None
            assert published.state == TestState.PUBLIC  # public before any preview ran
            queued = reading.exec(
                select(Job).where(
                    Job.kind == preview_jobs.PREVIEW_EVALUATE, Job.subject_id == test.id
                )
            ).all()
            evaluations = reading.exec(
                select(PreviewEvaluation).where(PreviewEvaluation.test_id == test.id)
            ).all()
        assert len(queued) == expected
        assert all(job.max_attempts == MAX_ATTEMPTS for job in queued)
        assert evaluations == []
