"""The header's staff links: whether the viewer sees Moderation and Operations, and how many
items wait in each. Read when the header mounts, again after each action that changes them
(``load_counts`` is chained after it), and every ``REFRESH_SECONDS`` while the tab is visible,
for what other people change meanwhile."""

from __future__ import annotations

import reflex as rx

from benchmax.context import app_context
from benchmax.models import Role
from benchmax.services.moderation.nav_counts import nav_counts
from benchmax.state.session import SessionState
from benchmax.state.views.nav import NavView

STAFF_ROLES = (str(Role.MODERATOR), str(Role.OWNER))
# Light: a tenth as often as /operations polls, on every page a staff account has open, for
# four indexed COUNTs (``autorefresh_button`` presses it, only while the tab is visible).
REFRESH_SECONDS = 30


class NavState(SessionState):
    view: rx.Field[NavView] = rx.field(default_factory=NavView)

    @rx.var
    def staff(self) -> bool:
        """Only staff accounts ask for counts; everyone else's pages make no extra call."""
        return self.viewer_role in STAFF_ROLES

    @rx.event
    def load_counts(self) -> None:
        if not self.staff:
            return  # chained after an action anyone may take: no count, no query
        # The session is verified again: the links follow the server's role rules, and a
        # suspended moderator sees no link to a page that would refuse them.
        user = self._require_user()
        with app_context().session() as session:
            self.view = NavView.of(nav_counts(session, user))
