"""The application context: built once from settings, shared, and handed on."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from sqlalchemy import Engine, text

from benchmax.adapters.queue import DispatcherSlot
from benchmax.context import AppContext, app_context, use_app_context
from benchmax.settings import Settings


class _Recorder:
    def __init__(self) -> None:
        self.sent: list[list[int]] = []

    def send(self, job_ids: Sequence[int]) -> None:
        self.sent.append(list(job_ids))


def test_one_context_shares_its_collaborators_with_the_job_handlers(
    settings: Settings, engine: Engine
) -> None:
    ctx = AppContext.from_settings(settings, engine=engine)
    assert ctx.jobs.settings is ctx.settings
    assert ctx.jobs.engine is ctx.engine is engine
    assert ctx.jobs.storage is ctx.storage
    assert ctx.jobs.queue is ctx.queue
    with ctx.session() as session:
        assert session.execute(text("SELECT 1")).scalar_one() == 1


def test_the_accessor_refuses_before_the_app_sets_a_context(settings: Settings) -> None:
    previous = use_app_context(None)
    try:
        with pytest.raises(RuntimeError, match="no application context"):
            app_context()
        ctx = AppContext.from_settings(settings)
        assert use_app_context(ctx) is None
        assert app_context() is ctx
    finally:
        use_app_context(previous)


def test_the_dispatcher_slot_forwards_to_what_is_attached(
    caplog: pytest.LogCaptureFixture,
) -> None:
    slot, recorder = DispatcherSlot(), _Recorder()
    slot.send([1])  # nothing attached: dropped with a warning, the sweeper re-sends
    assert "finds them due" in caplog.text
    assert slot.attach(recorder) is None
    slot.send([2, 3])
    assert recorder.sent == [[2, 3]]
    assert slot.attach(None) is recorder
    slot.send([4])
    assert recorder.sent == [[2, 3]]
