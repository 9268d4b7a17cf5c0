"""Open-queue counts for the header's Moderation and Operations links.

A header calls ``NavCountsState.load_counts`` (on mount or with a page's ``on_load``) and
shows ``show_moderation``/``moderation_count`` and ``show_operations``/``operations_count``.
The viewer is verified again here, so a link and its count appear only for those the queue
itself would let in; a suspended moderator sees neither.
"""

from __future__ import annotations

import reflex as rx

from benchmax.context import app_context
from benchmax.services.moderation.counts import open_queue_counts
from benchmax.services.moderation.policy import can_moderate, is_active_owner
from benchmax.state.session import SessionState


class NavCountsState(SessionState):
    show_moderation: rx.Field[bool] = rx.field(False)
    show_operations: rx.Field[bool] = rx.field(False)
    moderation_count: rx.Field[int] = rx.field(0)
    operations_count: rx.Field[int] = rx.field(0)

    @rx.var
    def moderation_label(self) -> str:
        """What a screen reader hears for the link, e.g. "Moderation, 3 open"."""
        return f"Moderation, {self.moderation_count} open"

    @rx.var
    def operations_label(self) -> str:
        return f"Operations, {self.operations_count} need attention"

    @rx.event
    def load_counts(self) -> None:
        user = self._require_user()
        self.show_moderation = can_moderate(user)
        self.show_operations = is_active_owner(user)
        if not self.show_moderation or user is None:
            self.moderation_count = self.operations_count = 0
            return
        with app_context().session() as session:
            counts = open_queue_counts(session, user.role)
        self.moderation_count = counts.moderation_total
        self.operations_count = counts.operations.dead_jobs if counts.operations else 0
