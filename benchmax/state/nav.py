"""The header's staff links: whether the viewer sees Moderation and Operations, and how many
items wait in each. Read once per page load (the header mounts once per page)."""

from __future__ import annotations

from dataclasses import dataclass

import reflex as rx

from benchmax.context import app_context
from benchmax.models import Role
from benchmax.services.moderation.nav_counts import NavCounts, nav_counts
from benchmax.state.session import SessionState

STAFF_ROLES = (str(Role.MODERATOR), str(Role.OWNER))


@dataclass(frozen=True)
class NavView:
    may_moderate: bool = False
    may_operate: bool = False
    moderation: int = 0
    operations: int = 0

    @classmethod
    def of(cls, counts: NavCounts) -> NavView:
        return cls(counts.may_moderate, counts.may_operate, counts.moderation, counts.operations)


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
