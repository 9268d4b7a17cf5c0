"""The automated preview section of ``/tests/[test_id]``.

A substate of the Test page's state, loaded when the section mounts and again by its
auto-refresh button while the preview is still pending, so a preview that finishes after the
page opened appears without a reload.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import reflex as rx

from benchmax.context import app_context
from benchmax.models import User
from benchmax.services.errors import ServiceError
from benchmax.services.preview.view import preview_view, retry_preview
from benchmax.state.detail import TestDetailState
from benchmax.state.views.preview import PreviewPanel


class TestPreviewState(TestDetailState):
    preview: rx.Field[PreviewPanel] = rx.field(default_factory=PreviewPanel)
    preview_notice: rx.Field[str] = rx.field("")

    @rx.event
    def load_preview(self) -> None:
        if not self.test.id:
            return
        user = self._require_user()
        ctx = app_context()
        with ctx.session() as session:
            view = preview_view(session, ctx.settings, self.test.id, viewer_id=user and user.id)
        if asdict(view) != asdict(self.preview):
            self.preview = PreviewPanel(**asdict(view))

    @rx.event
    def retry(self) -> None:
        settings, test_id = app_context().settings, self.test.id

        def retry(session: Any, user: User | None) -> bool:
            """Whether there was a viewer to ask for it (no one signed in: nothing happens)."""
            if user is not None:
                retry_preview(session, settings, user.id, test_id)
            return user is not None

        asked = self._attempt(retry)
        if isinstance(asked, ServiceError):
            self.preview_notice = asked.message
            return
        if not asked:
            return
        self.preview_notice = "The preview will run again shortly."
        self.load_preview()
