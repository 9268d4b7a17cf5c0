"""The judge section of ``/operations``: state, budget, cost and the snapshot actions.

Owners only, re-verified on the server for every event, like the rest of the page. A
calibration runs in a worker thread outside the state lock (it makes dozens of requests), so
the page stays usable and shows "Calibrating…" until it ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import reflex as rx

from benchmax.context import app_context
from benchmax.services.errors import ServiceError
from benchmax.services.judge import calibration, snapshots
from benchmax.services.judge.status import judge_status
from benchmax.services.operations import require_owner
from benchmax.state.operations import OperationsState
from benchmax.state.session import SessionState
from benchmax.state.views.judge import JudgeView


def _status_view() -> JudgeView:
    with app_context().session() as session:
        return JudgeView.of(judge_status(session, app_context().settings))


class JudgeOperationsState(SessionState):
    judge_allowed: rx.Field[bool] = rx.field(False)
    judge: rx.Field[JudgeView] = rx.field(default_factory=JudgeView)
    snapshot_source: rx.Field[str] = rx.field("")
    judge_notice: rx.Field[str] = rx.field("")
    judge_notice_ok: rx.Field[bool] = rx.field(True)
    calibrating: rx.Field[bool] = rx.field(False)
    _calibrating_id: str = ""

    def _owner(self) -> Any:
        owner = self._attempt(lambda _session, user: require_owner(user))
        if isinstance(owner, ServiceError):
            self.judge_allowed = False
            self.judge = JudgeView()
            return None
        return owner

    def _say(self, text: str, ok: bool = True) -> None:
        self.judge_notice, self.judge_notice_ok = text, ok

    def _show(self) -> None:
        self.judge = _status_view()

    @rx.event
    def on_load(self) -> None:
        self.judge_allowed = self._owner() is not None
        if self.judge_allowed:
            self._show()

    @rx.event
    def refresh_judge(self) -> None:
        if self._owner() is not None:
            self._show()

    @rx.event
    def set_snapshot_source(self, value: str) -> None:
        self.snapshot_source = value[: snapshots.MAX_FILE_BYTES]

    @rx.event
    def create_snapshot(self) -> None:
        user = self._owner()
        if user is None:
            return
        try:
            with app_context().session() as session:
                snapshot = snapshots.create_snapshot(
                    session, self.snapshot_source.encode(), app_context().settings, user.id
                )
        except snapshots.JudgeSnapshotError as exc:
            self._say(str(exc), ok=False)
            return
        self.snapshot_source = ""
        self._say(f"Snapshot {snapshot.id} created; calibrate it next.")
        self._show()

    @rx.event
    def activate(self, snapshot_id: str) -> Any:
        settings = app_context().settings
        return self._change(
            snapshot_id,
            "activated",
            lambda s, actor: snapshots.activate(s, snapshot_id, settings, actor),
        )

    @rx.event
    def deactivate(self, snapshot_id: str) -> Any:
        return self._change(
            snapshot_id, "deactivated", lambda s, actor: snapshots.deactivate(s, snapshot_id, actor)
        )

    def _change(self, snapshot_id: str, done: str, change: Callable[[Any, str], object]) -> Any:
        """Apply one owner's ``change`` (given the session and their id) and say it was ``done``;
        then the page's summary, which says whether AI review is on, is read again."""
        user = self._owner()
        if user is None:
            return None
        try:
            with app_context().session() as session:
                change(session, user.id)
        except snapshots.JudgeSnapshotError as exc:
            self._say(str(exc), ok=False)
            return None
        self._say(f"Snapshot {snapshot_id} {done}.")
        self._show()
        return OperationsState.refresh

    @rx.event
    def calibrate(self, snapshot_id: str) -> Any:
        """Start calibrating ``snapshot_id`` in the background."""
        if self._owner() is None or self.calibrating:
            return None
        self._calibrating_id = snapshot_id
        return JudgeOperationsState.run_calibration

    @rx.event(background=True)
    async def run_calibration(self) -> None:
        async with self:
            user = self._owner()
            snapshot_id = self._calibrating_id
            if user is None or self.calibrating or not snapshot_id:
                return
            self.calibrating = True
            self._say("Calibrating…")
        try:
            message, ok = await asyncio.to_thread(_calibrate, snapshot_id, user.id)
        finally:
            async with self:
                self.calibrating = False
        async with self:
            self._say(message, ok)
            self._show()


def _calibrate(snapshot_id: str, actor_id: str) -> tuple[str, bool]:
    ctx = app_context()
    try:
        with ctx.session() as session:
            run = calibration.calibrate_with_configured_judge(
                session, snapshot_id, ctx.jobs.judge, ctx.storage, ctx.settings, actor_id
            )
    except snapshots.JudgeSnapshotError as exc:
        return str(exc), False
    if run.passed:
        return f"Calibration passed (MAE {run.mae}, Spearman {run.spearman}).", True
    return "Calibration failed: " + ", ".join(run.failures), False
