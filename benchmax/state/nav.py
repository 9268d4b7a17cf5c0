"""The header's staff links: whether the viewer sees Moderation and Operations, and how many
items wait in each. Read once per page load (the header mounts once per page)."""

from __future__ import annotations

import reflex as rx

from benchmax.context import app_context
from benchmax.models import Role
from benchmax.services.moderation.nav_counts import nav_counts
from benchmax.state.session import SessionState
from benchmax.state.views.nav import NavView

STAFF_ROLES = (str(Role.MODERATOR), str(Role.OWNER))


class NavState(SessionState):
    view: rx.Field[NavView] = rx.field(default_factory=NavView)

    @rx.var
    def staff(self) -> bool:
        """Only staff accounts ask for counts; everyone else's pages make no extra call."""
        return self.viewer_role in STAFF_ROLES

    @rx.event
    def load_counts(self) -> None:
        # The session is verified again: the links follow the server's role rules, and a
        # suspended moderator sees no link to a page that would refuse them.
        user = self._require_user()
        with app_context().session() as session:
            self.view = NavView.of(nav_counts(session, user))
