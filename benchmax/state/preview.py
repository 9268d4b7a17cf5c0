"""The automated preview section of ``/tests/[test_id]``.

A substate of the Test page's state, loaded when the section mounts and again by its
auto-refresh button while the preview is still pending, so a preview that finishes after the
page opened appears without a reload.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import reflex as rx

from benchmax.context import app_context
from benchmax.services.errors import ServiceError
from benchmax.services.preview.view import PreviewView, preview_view, retry_preview
from benchmax.state.detail import TestDetailState


@dataclass(frozen=True)
class PreviewPanel(PreviewView):
    """The service's view, as this state's typed var."""


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
        user = self._require_user()
        if user is None:
            return
        ctx = app_context()
        try:
            with ctx.session() as session:
                retry_preview(session, ctx.settings, user.id, self.test.id)
        except ServiceError as error:
            self.preview_notice = error.message
            return
        self.preview_notice = "The preview will run again shortly."
        self.load_preview()
