"""The signed-in viewer, shared by every page state.

The ``__session`` cookie holds a Clerk-shaped session token (minted by Clerk in production or
by the local issuer in development). It is verified on the server on every page load, and
privileged handlers call ``_require_user`` which verifies it again rather than trusting vars
the browser could have seen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import reflex as rx
from reflex.event import EventSpec

from benchmax.adapters.auth import SESSION_COOKIE
from benchmax.context import app_context
from benchmax.models import User
from benchmax.services import accounts
from benchmax.services.errors import ServiceError
from benchmax.settings import get_settings

T = TypeVar("T")


class SessionState(rx.State):
    session_token: str = rx.Cookie(
        "",
        name=SESSION_COOKIE,
        path="/",
        same_site="lax",
        # Reflex fixes a cookie's attributes when the class is defined, before the app has
        # set its context, so this one value comes straight from the settings.
        max_age=get_settings().session_ttl_seconds,
    )
    viewer_id: rx.Field[str] = rx.field("")
    viewer_handle: rx.Field[str] = rx.field("")
    viewer_name: rx.Field[str] = rx.field("")
    viewer_role: rx.Field[str] = rx.field("")
    viewer_can_write: rx.Field[bool] = rx.field(False)

    @rx.var
    def signed_in(self) -> bool:
        return bool(self.viewer_id)

    def _current_user(self) -> User | None:
        if not self.session_token:
            return None  # a visitor: no database session to open
        ctx = app_context()
        with ctx.session() as session:
            return accounts.session_user(session, ctx.verifier, self.session_token, ctx.settings)

    def _remember(self, user: User | None) -> None:
        self.viewer_id = user.id if user else ""
        self.viewer_handle = user.handle if user else ""
        self.viewer_name = user.display_name if user else ""
        self.viewer_role = str(user.role) if user else ""
        self.viewer_can_write = bool(user and user.can_write)

    def _require_user(self) -> User | None:
        """Re-verify the session for a privileged action; never trust cached vars alone."""
        user = self._current_user()
        self._remember(user)
        return user

    def _attempt(self, work: Callable[[Any, User | None], T]) -> T | ServiceError:
        """Run ``work`` for the re-verified viewer in one transaction. A refusal is returned,
        not raised, so the handler can show its message and keep what was typed."""
        user = self._require_user()
        try:
            with app_context().session() as session:
                return work(session, user)
        except ServiceError as error:
            return error

    def _path_name(self, limit: int | None = 64) -> str:
        """The last segment of the page's path: the id, handle or key the page is about."""
        return str(self.router.url.path).rstrip("/").rsplit("/", 1)[-1][:limit]

    def _look_up(self, find: Callable[[Any, str], T | None]) -> T | None:
        """For a page about what its path names: load the viewer, then what ``find`` answers
        for that name (None: not found)."""
        self.load_viewer()
        name = self._path_name()
        with app_context().session() as session:
            return find(session, name)

    @rx.event
    def load_viewer(self) -> None:
        self._remember(self._current_user())

    @rx.event
    def sign_out(self) -> EventSpec:
        self.session_token = ""
        self._remember(None)
        return rx.redirect("/")
