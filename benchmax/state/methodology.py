"""``/methodology``: the public half of the key that signs every snapshot, read at load."""

from __future__ import annotations

import reflex as rx

from benchmax.context import app_context
from benchmax.services.leaderboard import signing
from benchmax.state.session import SessionState


class MethodologyState(SessionState):
    public_key: rx.Field[str] = rx.field("")
    fingerprint: rx.Field[str] = rx.field("")

    @rx.event
    def on_load(self) -> None:
        self.load_viewer()
        key = signing.published_key(app_context().settings)
        self.public_key = key.public_hex if key else ""
        self.fingerprint = key.fingerprint if key else ""
