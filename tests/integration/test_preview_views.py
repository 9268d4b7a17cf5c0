"""A comparison group shows each Test's preview figures side by side, or why it has none."""

from __future__ import annotations

import json
from dataclasses import asdict

from sqlmodel import Session, select

from benchmax.models import PreviewEvaluation
from benchmax.services.preview.compare import preview_figures
from benchmax.services.preview.jobs import REASON_FAILED, REASON_OFF
from benchmax.services.preview.view import preview_view
from benchmax.services.prompts import groups
from benchmax.settings import Settings
from tests.support.factories import make_test
from tests.support.preview_rows import done, failed, previewed_test
from tests.unit.safety.corpus import canary_key

PROMPT = "Make a one-page site that counts button presses, with a reset link."


def test_a_group_shows_each_tests_preview_figures_side_by_side(
    session: Session, settings: Settings
) -> None:
    fast = done(session, PROMPT, load_ms=420, errors=2)
    broken = failed(session, PROMPT, "page_timeout", "Timeout 30000ms exceeded.")
    plain = make_test(session, prompt=PROMPT)  # no source ZIP: nothing to preview
    waiting = previewed_test(session, PROMPT, None)
    session.commit()
    group = groups.prompt_group(session, fast.prompt_key)
    assert group is not None
    ids = [member.test.id for member in group.members]
    assert set(ids) == {fast.id, broken.id, plain.id, waiting.id}

    local = settings.model_copy(update={"preview_sandbox": "local"})
    figures = preview_figures(session, local, ids)
    assert figures[fast.id].status == "done"
    assert figures[fast.id].load_time == "0.42 s"
    assert figures[fast.id].console_error_count == 2
    assert figures[fast.id].accessibility == "2 rules failed (1 serious or critical)"
    assert (figures[broken.id].status, figures[broken.id].reason) == ("unavailable", REASON_FAILED)
    assert "page_timeout" not in str(asdict(figures[broken.id]))  # the code is for owners
    assert figures[plain.id].status == "none"
    assert figures[waiting.id].status == "pending"

    off = preview_figures(session, settings, [waiting.id])[waiting.id]
    assert (off.status, off.reason) == ("unavailable", REASON_OFF)


def test_a_result_stored_before_the_gate_is_read_redacted(
    session: Session, settings: Settings
) -> None:
    key = canary_key()
    test = done(session, PROMPT, load_ms=300, errors=1)
    evaluation = session.exec(
        select(PreviewEvaluation).where(PreviewEvaluation.test_id == test.id)
    ).one()
    evaluation.result_json = json.dumps({"status": "ok", "console_errors": [f"leaked {key}"]})
    session.add(evaluation)
    session.commit()
    local = settings.model_copy(update={"preview_sandbox": "local"})
    view = preview_view(session, local, test.id)
    assert view.console_errors == ["leaked [removed: looked like an Anthropic API key]"]
