"""The wizard's processing substate: submitting the draft, then following it until it settles.

``submit`` starts safety processing once and turns the page into the processing view; a
refusal names a field, and the page moves to the step that shows it. From then on
``check_processing`` reads where the Test stands (the page presses its Check now button every
``POLL_SECONDS``), writing the verdicts into the files substate's rows, until the Test is
public (its link, with a button to copy it) or needs attention. A page that comes back to a
submitted Test's address is put back on this view by ``_follow``, from the database alone.
"""

from __future__ import annotations

import asyncio
from typing import Any

import reflex as rx

from benchmax.context import app_context
from benchmax.models import User
from benchmax.services import submissions
from benchmax.services.errors import ServiceError
from benchmax.state.submit.files import WizardFilesState, file_rows
from benchmax.state.submit.steps import step_of, wizard_url
from benchmax.state.submit.wizard import WizardState

FINAL_STATES = ("public", "needs_attention", "failed", "removed")
# Named by the address, these open the processing view; a Test that needs fixing opens the
# wizard at its files, and a failed or removed one a new draft, as before.
FOLLOWED_STATES = ("processing", "public")


def _processing_status(user: User, test_id: str) -> submissions.StatusView:
    with app_context().session() as session:
        return submissions.processing_status(session, user, test_id)


class WizardProcessingState(WizardState):
    status_label: rx.Field[str] = rx.field("")
    status_reason: rx.Field[str] = rx.field("")
    public_url: rx.Field[str] = rx.field("")
    public_link: rx.Field[str] = rx.field("")
    link_copied: rx.Field[bool] = rx.field(False)
    _checking: bool = False

    @rx.event
    def submit(self) -> Any:
        """Submit once: a second click while the first is processing does nothing."""
        if self.phase != "edit":
            return None
        draft_id = self.draft_id
        submitted = self._attempt(
            lambda session, user: (
                submissions.submit(session, user, draft_id)
                if user is not None and draft_id
                else None
            )
        )
        if submitted is None:
            self.errors = {**self.errors, "form": "Fill in the prompt on step 1 first."}
            return None
        if isinstance(submitted, ServiceError):
            self.errors = {**self.errors, (submitted.field or "form"): submitted.message}
            back = step_of(submitted.field) or self.step
            if back == self.step:
                return None
            self._carried = dict(self.errors)  # shown on the step the refusal sends them to
            return rx.redirect(wizard_url(self.draft_id, back))
        self.phase, self.link_copied = "processing", False
        self.status_label, self.status_reason, self.public_url = "Processing", "", ""
        return WizardProcessingState.check_processing

    async def _follow(self, user: User, test_id: str) -> None:
        """Show a submitted Test's processing view, read from the database.

        Reflex runs ``on_load`` again whenever the event socket reconnects, and a page whose
        replica died comes back with a new session token and an empty state: the dead
        replica's record of the socket stays in Redis, so Reflex takes the page for a second
        tab. The address and the database still say which Test the page was following.
        """
        self.draft_id, self.phase, self.link_copied = test_id, "processing", False
        self.public_url = self.public_link = ""
        self._checking = False  # a check in flight may have died with the replica running it
        await self._show(_processing_status(user, test_id))

    async def _show(self, view: submissions.StatusView) -> None:
        self.status_label, self.status_reason = view.plain_status, view.reason
        files = await self.get_state(WizardFilesState)
        files.files = file_rows(view.files)
        if view.state in FINAL_STATES:
            self.phase = "done"
            self.public_url = view.public_url or ""
            origin = app_context().settings.app_origin.rstrip("/")
            self.public_link = origin + self.public_url if self.public_url else ""

    @rx.event
    def copy_link(self) -> Any:
        self.link_copied = True
        return rx.set_clipboard(self.public_link)

    @rx.event(background=True)
    async def check_processing(self) -> None:
        """Read where the submitted Test stands; the page's Check now button runs this, and
        ``assets/autorefresh.js`` clicks it every ``POLL_SECONDS`` while the tab is visible."""
        async with self:
            user = self._current_user()
            draft_id = self.draft_id
            if user is None or not draft_id or self.phase != "processing" or self._checking:
                return
            self._checking = True
        try:
            # Read outside the state lock, in a thread, so the tab stays responsive.
            view = await asyncio.to_thread(_processing_status, user, draft_id)
            async with self:
                if self.draft_id != draft_id or self.phase != "processing":
                    return
                await self._show(view)
        finally:
            async with self:
                self._checking = False
