"""``/sign-in``: the local issuer's pick-a-handle form (development) or Clerk (production)."""

from __future__ import annotations

import reflex as rx
from reflex.event import EventSpec

from benchmax.adapters.auth import LocalIssuer
from benchmax.context import app_context
from benchmax.services import accounts
from benchmax.services.errors import ServiceError
from benchmax.state.session import SessionState


def _safe_next(target: str) -> str:
    """Only same-site paths, so a crafted link cannot bounce a user to another site."""
    if target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return "/"


class SignInState(SessionState):
    handle: rx.Field[str] = rx.field("")
    display_name: rx.Field[str] = rx.field("")
    error: rx.Field[str] = rx.field("")
    local_mode: rx.Field[bool] = rx.field(True)

    @rx.event
    def on_load(self) -> None:
        self.load_viewer()
        self.local_mode = app_context().settings.auth_backend == "local"
        self.error = ""

    @rx.event
    def sign_in(self, form: dict[str, str]) -> EventSpec | None:
        self.handle = str(form.get("handle", ""))[:64]
        self.display_name = str(form.get("display_name", ""))[:80]
        settings = app_context().settings
        if settings.auth_backend != "local":
            self.error = "Local sign-in is disabled on this instance."
            return None
        handle, name = self.handle, self.display_name
        user = self._attempt(
            lambda session, _viewer: accounts.get_or_create_local_user(
                session, handle, name, settings
            )
        )
        if isinstance(user, ServiceError):
            self.error = user.message
            return None
        self.session_token = LocalIssuer(settings).mint(user.auth_subject)
        self._remember(user)
        self.error = ""
        target = self.router.url.query_parameters.get("next", "/")
        return rx.redirect(_safe_next(target))
