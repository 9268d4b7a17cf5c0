"""``/submit``: the guided wizard. Every step is saved to a private server-side draft.

The draft row is the only copy of what the contributor typed: each Next/Back and each field
blur saves it, so a reload, a closed tab or a lost connection resumes where they were. A
secret in a text field is refused by the service before anything from that save is stored,
and the typed text stays in the browser so nothing is lost while they fix it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import reflex as rx

from benchmax.context import app_context
from benchmax.models import User
from benchmax.services import submissions
from benchmax.services.catalog import suggest_harnesses, suggest_models
from benchmax.services.errors import ServiceError
from benchmax.state.session import SessionState
from benchmax.state.submit_files import WizardFile, file_rows
from benchmax.state.submit_steps import (
    EVIDENCE_STEP,
    FIELD_STEP,
    LAST_STEP,
    STEP_FIELDS,
    STEP_TITLES,
    TEXT_FIELDS,
    step_of,
)

FINAL_STATES = ("public", "needs_attention", "failed", "removed")
POLL_SECONDS = 1.0


def _processing_status(user: User, test_id: str) -> submissions.StatusView:
    with app_context().session() as session:
        return submissions.processing_status(session, user, test_id)


class SubmitState(SessionState):
    draft_id: rx.Field[str] = rx.field("")
    # Changes whenever the form is refilled from the server, so uncontrolled inputs remount
    # with the loaded values instead of keeping what the browser last showed.
    form_key: rx.Field[int] = rx.field(0)
    step: rx.Field[int] = rx.field(1)
    prompt: rx.Field[str] = rx.field("")
    model_label: rx.Field[str] = rx.field("")
    model_version_label: rx.Field[str] = rx.field("")
    harness_label: rx.Field[str] = rx.field("")
    reasoning_label: rx.Field[str] = rx.field("")
    settings_text: rx.Field[str] = rx.field("")
    attempts: rx.Field[str] = rx.field("")
    output_text: rx.Field[str] = rx.field("")
    title: rx.Field[str] = rx.field("")
    notes: rx.Field[str] = rx.field("")
    source_visibility: rx.Field[str] = rx.field("private")
    errors: rx.Field[dict[str, str]] = rx.field(default_factory=dict)
    notice: rx.Field[str] = rx.field("")
    files: rx.Field[list[WizardFile]] = rx.field(default_factory=list)
    model_suggestions: rx.Field[list[str]] = rx.field(default_factory=list)
    harness_suggestions: rx.Field[list[str]] = rx.field(default_factory=list)
    loaded: rx.Field[bool] = rx.field(False)
    saved_at: rx.Field[str] = rx.field("")
    # After submit: the live processing view.
    phase: rx.Field[str] = rx.field("edit")
    status_label: rx.Field[str] = rx.field("")
    status_reason: rx.Field[str] = rx.field("")
    public_url: rx.Field[str] = rx.field("")
    _checking: bool = False

    @rx.var
    def step_title(self) -> str:
        return STEP_TITLES[self.step - 1]

    @rx.var
    def files_checking(self) -> bool:
        """Whether a file's safety scan is still running (step 3 then polls for verdicts)."""
        return self.phase == "edit" and any(f.state == "quarantined" for f in self.files)

    @rx.var
    def has_zip(self) -> bool:
        return any(f.is_zip for f in self.files)

    # --- loading ---------------------------------------------------------------------

    def _fill_from(self, test: Any) -> None:
        self.draft_id = test.id
        for field in TEXT_FIELDS:
            value = getattr(test, field, "")
            setattr(self, field, "" if value is None else str(value))
        self.form_key += 1
        self.step = max(1, min(LAST_STEP, int(test.wizard_step or 1)))
        if str(test.state) == "needs_attention":
            self.step = EVIDENCE_STEP  # the files that need fixing are there

    def _refresh_files(self, session: Any, user: User) -> None:
        if not self.draft_id:
            self.files = []
            return
        view = submissions.processing_status(session, user, self.draft_id)
        self.files = file_rows(view.files)

    @rx.event
    def on_load(self) -> None:
        self.load_viewer()
        self.errors, self.notice, self.phase, self.loaded = {}, "", "edit", False
        user = self._require_user()
        if user is None:
            self.loaded = True
            return
        wanted = self.router.url.query_parameters.get("draft", "")
        with app_context().session() as session:
            test = None
            if wanted:
                try:
                    test = submissions.get_own_test(session, user, wanted)
                except ServiceError:
                    test = None
            if test is None:
                test = submissions.latest_draft(session, user)
            if test is not None and str(test.state) in ("draft", "needs_attention"):
                self._fill_from(test)
                self._refresh_files(session, user)
            else:
                self._reset_form()
        self.loaded = True

    def _reset_form(self) -> None:
        self.form_key += 1
        self.draft_id = ""
        self.step = 1
        for field in TEXT_FIELDS:
            setattr(self, field, "")
        self.source_visibility = "private"
        self.files = []

    @rx.event
    def start_new(self) -> None:
        self._reset_form()
        self.errors, self.notice, self.phase = {}, "", "edit"

    # --- field edits -------------------------------------------------------------------
    # Inputs are uncontrolled: the text lives in the browser, and reaches this state only
    # after the service accepted and stored it. A refused value (a pasted key, say) is never
    # kept here, so it cannot reach the state manager's memory, disk or Redis.

    @rx.event
    def suggest(self, field: str, prefix: str) -> None:
        with app_context().session() as session:
            if field == "model_label":
                self.model_suggestions = [s.label for s in suggest_models(session, prefix, 8)]
            elif field == "harness_label":
                self.harness_suggestions = [s.label for s in suggest_harnesses(session, prefix, 8)]

    # --- saving ------------------------------------------------------------------------

    def _save(self, values: dict[str, str], step: int) -> bool:
        """Store ``values``; on refusal show the reason by the field and remember nothing."""
        user = self._require_user()
        if user is None:
            self.notice = "Your session ended. Sign in again — your draft is saved."
            return False
        try:
            with app_context().session() as session:
                # The new draft's id is kept only once its first save committed: a refused
                # save rolls the row back, and an id remembered from it would point at nothing.
                draft_id = self.draft_id or submissions.create_draft(session, user).id
                submissions.save_draft(session, user, draft_id, values, step=step)
        except ServiceError as exc:
            self.errors = {**self.errors, (exc.field or "form"): exc.message}
            return False
        self.draft_id = draft_id
        for field, value in values.items():
            setattr(self, field, value)
        self.errors = {k: v for k, v in self.errors.items() if k not in values}
        self.saved_at = "Draft saved"
        return True

    @rx.event
    def autosave(self, field: str, value: str) -> None:
        value = str(value)
        if field in TEXT_FIELDS and value != getattr(self, field):
            self._save({field: value}, self.step)

    def _missing_required(self, values: dict[str, str]) -> bool:
        """Flag this step's blank required fields; what was typed is already saved."""
        missing = {
            field: message
            for field, message in submissions.REQUIRED_MESSAGES.items()
            if FIELD_STEP.get(field) == self.step and not values.get(field, "").strip()
        }
        self.errors = {**self.errors, **missing}
        return bool(missing)

    @rx.event
    def next_step(self, form: dict[str, Any]) -> None:
        values = {f: str(form.get(f, "")) for f in STEP_FIELDS.get(self.step, ()) if f in form}
        if self._save(values, self.step) and not self._missing_required(
            {f: str(getattr(self, f)) for f in STEP_FIELDS.get(self.step, ())}
        ):
            self.go_to(min(self.step + 1, LAST_STEP))

    @rx.event
    def previous_step(self) -> None:
        self.go_to(max(self.step - 1, 1))

    @rx.event
    def go_to(self, step: int) -> None:
        """Fields save themselves when they lose focus, so moving only records the step."""
        self.step = step
        if self.draft_id:
            self._save({}, step)

    # --- files -------------------------------------------------------------------------

    @rx.event
    def refresh_files(self) -> None:
        """Called by the page's upload script after each file is stored or refused."""
        user = self._require_user()
        if user is None:
            self.notice = "Your session ended. Sign in again — your draft is saved."
            return
        with app_context().session() as session:
            self._refresh_files(session, user)
        self.errors = {k: v for k, v in self.errors.items() if k != "files"}

    @rx.event
    def remove_file(self, evidence_id: str) -> None:
        user = self._require_user()
        if user is None or not self.draft_id:
            return
        try:
            with app_context().session() as session:
                submissions.remove_file(
                    session, app_context().storage, user, self.draft_id, evidence_id
                )
        except ServiceError as exc:
            self.errors = {**self.errors, "files": exc.message}
        with app_context().session() as session:
            self._refresh_files(session, user)

    # --- submit and follow -------------------------------------------------------------

    @rx.event
    def submit(self) -> Any:
        user = self._require_user()
        if user is None or not self.draft_id:
            self.errors = {**self.errors, "form": "Fill in the prompt on step 1 first."}
            return None
        try:
            with app_context().session() as session:
                submissions.submit(session, user, self.draft_id)
        except ServiceError as exc:
            self.errors = {**self.errors, (exc.field or "form"): exc.message}
            self.step = step_of(exc.field) or self.step
            return None
        self.phase = "processing"
        self.status_label, self.status_reason, self.public_url = "Processing", "", ""
        return SubmitState.check_processing

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
                self.status_label, self.status_reason = view.plain_status, view.reason
                self.files = file_rows(view.files)
                if view.state in FINAL_STATES:
                    self.phase = "done"
                    self.public_url = view.public_url or ""
        finally:
            async with self:
                self._checking = False
