"""``/security``: the vulnerability contact comes from the settings at request time, so an
operator changes it without rebuilding the front end."""

from __future__ import annotations

import reflex as rx

from benchmax.context import app_context
from benchmax.state.session import SessionState


def contact_text(contact: str) -> str:
    """What a person reads for the contact URI: the address for ``mailto:``, else the URL."""
    scheme, _, rest = contact.partition(":")
    return rest.split("?", 1)[0] if scheme.lower() == "mailto" else contact


class SecurityState(SessionState):
    contact_href: rx.Field[str] = rx.field("")
    contact_label: rx.Field[str] = rx.field("")

    @rx.event
    def on_load(self) -> None:
        self._remember(self._current_user())
        contact = app_context().settings.security_contact
        self.contact_href = contact
        self.contact_label = contact_text(contact)
