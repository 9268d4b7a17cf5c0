"""A failed preview's technical detail is on /operations, for owners; its Test page gives
every reader, its contributor included, only the plain reason."""

from __future__ import annotations

from dataclasses import asdict

import pytest
from sqlmodel import Session

from benchmax.models import Job, JobState, PreviewState, Role
from benchmax.services.errors import Forbidden
from benchmax.services.preview.failures import recent_failures
from benchmax.services.preview.jobs import PREVIEW_EVALUATE, REASON_FAILED
from benchmax.services.preview.view import preview_view
from benchmax.settings import Settings
from benchmax.state.views.preview_failures import PreviewFailureRow
from tests.support.factories import make_user
from tests.support.preview_rows import failed, previewed_test

PROMPT = "Make a one-page site that counts button presses, with a reset link."
DETAIL = "net::ERR_ABORTED at http://127.0.0.1:41234/index.html"


def test_owners_see_failure_detail_and_readers_only_the_plain_reason(
    session: Session, settings: Settings
) -> None:
    owner = make_user(session, role=Role.OWNER)
    moderator = make_user(session, role=Role.MODERATOR)
    broken = failed(session, PROMPT, "browser_error:Error", DETAIL)
    dead = previewed_test(
        session,
        PROMPT,
        PreviewState.FAILED,
        reader_reason=REASON_FAILED,
        error_code="job_dead",
    )
    session.add(
        Job(
            kind=PREVIEW_EVALUATE,
            subject_id=dead.id,
            state=JobState.DEAD,
            attempts=3,
            max_attempts=3,
            last_error_code="preview_no_result",
        )
    )
    session.commit()

    rows = {row.test_id: row for row in recent_failures(session, owner)}
    assert rows[broken.id].error_code == "browser_error:Error"
    assert DETAIL in rows[broken.id].detail
    assert rows[broken.id].reader_reason == REASON_FAILED
    assert "last job error: preview_no_result" in rows[dead.id].detail
    shown = PreviewFailureRow.of(rows[broken.id])
    assert (shown.test_href, shown.run) == (f"/tests/{broken.id}", "local · 1 attempt · 31.5 s")
    assert shown.test_title == PROMPT  # no title given: the prompt's first line

    with pytest.raises(Forbidden):
        recent_failures(session, moderator)
    with pytest.raises(Forbidden):
        recent_failures(session, None)

    # The Test page's view, for its contributor as for anyone: the plain reason only.
    for viewer in (broken.contributor_id, None):
        view = preview_view(session, settings, broken.id, viewer_id=viewer)
        assert (view.status, view.reason) == ("unavailable", REASON_FAILED)
        assert "browser_error" not in str(asdict(view))
        assert DETAIL not in str(asdict(view))
