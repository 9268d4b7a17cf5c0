"""The preview's own pictures are scanned like uploads: a page that shows a key loses its
screenshot and recording, and readers are told why. Local sandbox: bubblewrap and Chromium."""

from __future__ import annotations

import random
import string

import pytest
from sqlmodel import Session, select

from benchmax.adapters.storage import PREVIEW_PREFIX
from benchmax.adapters.storage.local import LocalStorage
from benchmax.models import PreviewArtifact, PreviewEvaluation, PreviewState
from benchmax.services.jobs import JobContext
from benchmax.services.preview import jobs as preview_jobs
from benchmax.services.preview.view import preview_view
from tests.support.preview_sites import key_on_page, publish_site
from tests.unit.safety.corpus import canary_fragment

pytestmark = [pytest.mark.timeout(240), pytest.mark.sandbox]


def _fixed_key() -> str:
    """One fake Anthropic key for every run. OCR does not read every random key alike (a
    misread prefix turns "an Anthropic API key" into "an API key or secret", and some keys
    are missed), so a fresh key per run failed now and then; the rate over many keys is
    ``bench/scan.py``'s to measure, and this test checks what happens once a key is read."""
    rng = random.Random(42)
    body = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(93))
    return "sk-" + "ant-" + "api03-" + body + "AA"


@pytest.fixture
def ctx(pipeline_ctx: JobContext) -> JobContext:
    settings = pipeline_ctx.settings.model_copy(
        update={"preview_sandbox": "local", "job_lease_seconds": 90, "preview_timeout_seconds": 40}
    )
    return JobContext.from_settings(
        settings, engine=pipeline_ctx.engine, storage=pipeline_ctx.storage
    )


def test_a_page_showing_a_key_loses_its_pictures_and_says_why(
    ctx: JobContext, session: Session, local_storage: LocalStorage
) -> None:
    key = _fixed_key()
    test = publish_site(session, local_storage, key_on_page(key))
    preview_jobs.evaluate_preview(ctx, test.id)

    with Session(ctx.engine) as reading:
        evaluation = reading.exec(
            select(PreviewEvaluation).where(PreviewEvaluation.test_id == test.id)
        ).one()
        kinds = {
            row.kind
            for row in reading.exec(
                select(PreviewArtifact).where(PreviewArtifact.evaluation_id == evaluation.id)
            )
        }
        view = preview_view(reading, ctx.settings, test.id)
    assert evaluation.state == PreviewState.DONE, evaluation.error_code
    assert kinds == {"result"}
    assert view.status == "done"
    assert (view.screenshot_url, view.video_url) == ("", "")
    assert view.pictures_note == (
        "The screenshot and recording are not shown: the page showed what looks like an "
        "Anthropic API key."
    )
    fragment = canary_fragment(key).encode()
    for info in local_storage.list(PREVIEW_PREFIX):
        assert fragment not in b"".join(local_storage.get(info.key)), info.key
