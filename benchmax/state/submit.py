"""``/submit``: the guided wizard. Every step is saved to a private server-side draft.

The draft row is the only copy of what the contributor typed: each field saves itself 800 ms
after the last keystroke (and again when it loses focus), each Next saves the step, so a
reload, a closed tab or a lost connection resumes where they were. A secret in a text field
is refused by the service before anything from that save is stored, and the typed text stays
in the browser so nothing is lost while they fix it.

The step lives in the URL (``/submit?draft=…&step=3``), so the browser's Back and Forward
move between steps and a link opens the step it names; ``on_load`` is the one place a step
is entered, and it refuses a step whose earlier steps still need something.

Each save carries a stamp from the browser (``assets/wizard.js``): the page compares it with
the stamp of each field's last keystroke to say honestly whether anything is still unsaved,
and warns before the tab is closed or reloaded while it is.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import reflex as rx

from benchmax.context import app_context
from benchmax.models import User
from benchmax.services import submissions
from benchmax.services.catalog import suggest_harnesses, suggest_models
from benchmax.services.errors import ServiceError
from benchmax.services.markdown import render_markdown
from benchmax.state.session import SessionState
from benchmax.state.submit_files import WizardFile, file_rows
from benchmax.state.submit_steps import (
    EVIDENCE_STEP,
    LAST_STEP,
    STEP_FIELDS,
    STEP_TITLES,
    TEXT_FIELDS,
    clamp_step,
    first_incomplete,
    step_of,
    step_problems,
)

FINAL_STATES = ("public", "needs_attention", "failed", "removed")
# Named by the address, these open the processing view; a Test that needs fixing opens the
# wizard at its files, and a failed or removed one a new draft, as before.
FOLLOWED_STATES = ("processing", "public")
POLL_SECONDS = 1.0
# Moves keyboard and screen-reader focus to the step's heading once the new step is drawn.
FOCUS_HEADING = "requestAnimationFrame(() => document.getElementById('wizard-step-title')?.focus())"
_REFUSAL_NOTES = {
    "secret_detected": "remove the key",
    "field_too_long": "the text is too long",
    "field_control_chars": "remove the control characters",
    "field_single_line": "keep it to one line",
    "invalid_attempts": "attempts must be a whole number",
}


def _processing_status(user: User, test_id: str) -> submissions.StatusView:
    with app_context().session() as session:
        return submissions.processing_status(session, user, test_id)


def wizard_url(draft_id: str, step: int) -> str:
    """The address of one step of one draft; a new wizard has no draft yet."""
    if not draft_id:
        return f"/submit?step={step}"
    return f"/submit?draft={draft_id}&step={step}"


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
    # Errors put right on this visit to the step, with their message: it stays, marked as met,
    # so the controls below it do not jump up under a pointer on its way to "Next" (a click
    # that lands as the button moves is lost).
    met: rx.Field[dict[str, str]] = rx.field(default_factory=dict)
    notice: rx.Field[str] = rx.field("")
    files: rx.Field[list[WizardFile]] = rx.field(default_factory=list)
    model_suggestions: rx.Field[list[str]] = rx.field(default_factory=list)
    harness_suggestions: rx.Field[list[str]] = rx.field(default_factory=list)
    loaded: rx.Field[bool] = rx.field(False)
    # The save status: per field, the browser stamp of the newest keystroke the server has
    # answered (stored or refused); the refusals still standing; the newest stored stamp.
    answered: rx.Field[dict[str, int]] = rx.field(default_factory=dict)
    refused: rx.Field[dict[str, str]] = rx.field(default_factory=dict)
    saved_stamp: rx.Field[int] = rx.field(0)
    # After submit: the live processing view.
    phase: rx.Field[str] = rx.field("edit")
    status_label: rx.Field[str] = rx.field("")
    status_reason: rx.Field[str] = rx.field("")
    public_url: rx.Field[str] = rx.field("")
    public_link: rx.Field[str] = rx.field("")
    link_copied: rx.Field[bool] = rx.field(False)
    _checking: bool = False
    # What a load or a refused submit says, kept for the load of the address it moves to.
    _carried: dict[str, str] = {}
    _carried_notice: str = ""

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

    @rx.var
    def output_html(self) -> str:
        """The output as the Test page will render it, for the review step."""
        return render_markdown(self.output_text) if self.output_text else ""

    @rx.var
    def notes_html(self) -> str:
        return render_markdown(self.notes) if self.notes else ""

    @rx.var
    def save_note(self) -> str:
        """What the status line says once the server has answered every keystroke."""
        if self.refused:
            codes = list(self.refused.values())
            code = "secret_detected" if "secret_detected" in codes else codes[0]
            return "Not saved — " + _REFUSAL_NOTES.get(code, "see the message by the field")
        if self.saved_stamp:
            return "Saved"
        return "All changes saved" if self.draft_id else ""

    # --- loading ---------------------------------------------------------------------

    def _values(self) -> dict[str, str]:
        return {field: str(getattr(self, field)) for field in TEXT_FIELDS}

    def _evidence_count(self) -> int:
        """Files that can count as evidence: a blocked one is not."""
        return sum(1 for f in self.files if f.state != "blocked")

    def _fill_from(self, test: Any) -> None:
        self.draft_id = test.id
        for field in TEXT_FIELDS:
            value = getattr(test, field, "")
            setattr(self, field, "" if value is None else str(value))
        self.form_key += 1
        self.refused = {}

    def _refresh_files(self, session: Any, user: User) -> None:
        if not self.draft_id:
            self.files = []
            return
        view = submissions.processing_status(session, user, self.draft_id)
        self.files = file_rows(view.files)

    def _named(self, session: Any, user: User, wanted: str) -> Any:
        """The viewer's own Test the URL names, or None."""
        if not wanted:
            return None
        try:
            return submissions.get_own_test(session, user, wanted)
        except ServiceError:
            return None

    def _resolve(self, session: Any, user: User, test: Any, same_step: bool) -> int:
        """Load the draft the URL names (``test``, or else the latest one); returns its
        remembered step.

        Moving within one draft's wizard does not refill the fields when the step is the
        same, so a field with a keystroke still waiting to be saved keeps it.
        """
        if test is None:
            test = submissions.latest_draft(session, user)
        if test is None or str(test.state) not in ("draft", "needs_attention"):
            if self.draft_id or not same_step:
                self._reset_form()
            return 1
        if not (same_step and test.id == self.draft_id):
            self._fill_from(test)
        self._refresh_files(session, user)
        if str(test.state) == "needs_attention":
            return EVIDENCE_STEP  # the files that need fixing are there
        return clamp_step(test.wizard_step)

    @rx.event
    def on_load(self) -> Any:
        """Enter the step the URL names, or the first earlier step that still needs something."""
        self.load_viewer()
        before = self.step if self.loaded and self.phase == "edit" else 0
        self.notice, self.phase, self.loaded = "", "edit", False
        user = self._require_user()
        if user is None:
            self.loaded = True
            return None
        query = self.router.url.query_parameters
        raw_step = str(query.get("step", ""))
        with app_context().session() as session:
            named = self._named(session, user, str(query.get("draft", "")))
            if named is not None and str(named.state) in FOLLOWED_STATES:
                self._follow(session, user, named)
                self.loaded = True
                return None
            remembered = self._resolve(session, user, named, before == clamp_step(raw_step, 0))
        wanted = clamp_step(raw_step, remembered)
        self.step, problems = first_incomplete(wanted, self._values(), self._evidence_count())
        if self.draft_id and self.step != remembered:
            self._save({}, self.step)  # so /me's "Resume draft" comes back to this step
        self.errors, self.met = {**self._carried, **problems}, {}
        self.notice = self._carried_notice
        if problems:
            self.notice = f"Step {self.step}, {STEP_TITLES[self.step - 1]}, needs this first."
        self._carried, self._carried_notice = {}, ""
        self.loaded = True
        events: list[Any] = []
        # A new wizard stays at plain /submit; any other step gets its full address, and
        # what this load had to say is said again after the address is corrected.
        here = (str(query.get("draft", "")), raw_step)
        if (self.draft_id or self.step > 1 or raw_step) and here != (self.draft_id, str(self.step)):
            self._carried, self._carried_notice = dict(self.errors), self.notice
            events.append(rx.redirect(wizard_url(self.draft_id, self.step), replace=True))
        if before and before != self.step:
            events.append(rx.call_script(FOCUS_HEADING))
        return events

    def _reset_form(self) -> None:
        self.form_key += 1
        self.draft_id = ""
        self.step = 1
        for field in TEXT_FIELDS:
            setattr(self, field, "")
        self.source_visibility = "private"
        self.files = []
        self.refused, self.saved_stamp = {}, 0

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

    def _answer(self, fields: list[str], stamp: int, refusal: str = "") -> None:
        """Record that the server answered these fields' keystrokes up to ``stamp``."""
        if stamp:
            newer = {f: max(stamp, self.answered.get(f, 0)) for f in fields}
            self.answered = {**self.answered, **newer}
        if refusal:
            self.refused = {**self.refused, **dict.fromkeys(fields, refusal)}
        else:
            self.refused = {k: v for k, v in self.refused.items() if k not in fields}
            self.saved_stamp = max(self.saved_stamp, stamp) or self.saved_stamp or 1

    def _save(self, values: dict[str, str], step: int, stamp: int = 0) -> bool:
        """Store ``values``; on refusal show the reason by the field and remember nothing."""
        user = self._require_user()
        if user is None:
            self.notice = "Your session ended. Sign in again — your draft is saved."
            return False
        try:
            with app_context().session() as session:
                # The new draft's id is kept only once its first save committed: a refused
                # save rolls the row back, and an id remembered from it would point at nothing.
                draft_id = (
                    self.draft_id
                    or submissions.create_draft(session, user, app_context().settings).id
                )
                submissions.save_draft(session, user, draft_id, values, step=step)
        except ServiceError as exc:
            field = exc.field or "form"
            self.errors = {**self.errors, field: exc.message}
            self._answer(list(values) or [field], stamp, exc.code)
            return False
        self.draft_id = draft_id
        for field, value in values.items():
            setattr(self, field, value)
        self.met = {**self.met, **{k: v for k, v in self.errors.items() if k in values}}
        self.errors = {k: v for k, v in self.errors.items() if k not in values and k != "form"}
        self._answer(list(values), stamp)
        return True

    @rx.event
    def autosave(self, field: str, value: str, stamp: int = 0) -> None:
        """A field's text, sent 800 ms after its last keystroke and when it loses focus."""
        if self.phase != "edit" or field not in TEXT_FIELDS:
            return
        value = str(value)
        if value == getattr(self, field) and field not in self.refused:
            self._answer([field], int(stamp))  # typed and undone: nothing new to store
            return
        self._save({field: value}, self.step, int(stamp))

    @rx.event
    def next_step(self, form: dict[str, Any]) -> Any:
        """Save this step, check what it needs, and go on; a double click saves twice and
        moves once, because the step only changes when the new URL is loaded."""
        if self.phase != "edit" or self.step >= LAST_STEP:
            return None
        # Until the address names the draft (its first save made it), this step's entry is
        # rewritten to name it, so Back returns to this draft rather than to a blank wizard.
        anonymous = not self.router.url.query_parameters.get("draft")
        values = {f: str(form[f]) for f in STEP_FIELDS.get(self.step, ()) if f in form}
        if not self._save(values, self.step):
            return None
        problems = step_problems(self.step, self._values(), self._evidence_count())
        if problems:
            self.errors = {**self.errors, **problems}
            return None
        # Rewritten in place by the browser: two navigations sent at once would race, and
        # the router would keep only the second.
        here = json.dumps(wizard_url(self.draft_id, self.step))
        events = [rx.call_script(f"history.replaceState(history.state, '', {here})")]
        events = events if anonymous else []
        return [*events, rx.redirect(wizard_url(self.draft_id, self.step + 1))]

    @rx.event
    def previous_step(self) -> Any:
        return self.go_to(max(self.step - 1, 1))

    @rx.event
    def go_to(self, step: int) -> Any:
        """Fields save themselves as they lose focus, so moving is only a new address; a
        field whose text was refused keeps the contributor here rather than dropping it."""
        if self.refused:
            self.notice = "This step has text that is not saved. Fix the field marked in red first."
            return None
        if step == self.step:
            return None
        return rx.redirect(wizard_url(self.draft_id, step))

    # --- files -------------------------------------------------------------------------

    @rx.event
    def ensure_draft(self) -> None:
        """Called by the upload script when files arrive before anything else was saved."""
        if not self.draft_id:
            self._save({}, self.step)

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
        """Submit once: a second click while the first is processing does nothing."""
        if self.phase != "edit":
            return None
        user = self._require_user()
        if user is None or not self.draft_id:
            self.errors = {**self.errors, "form": "Fill in the prompt on step 1 first."}
            return None
        try:
            with app_context().session() as session:
                submissions.submit(session, user, self.draft_id)
        except ServiceError as exc:
            self.errors = {**self.errors, (exc.field or "form"): exc.message}
            back = step_of(exc.field) or self.step
            if back == self.step:
                return None
            self._carried = dict(self.errors)  # shown on the step the refusal sends them to
            return rx.redirect(wizard_url(self.draft_id, back))
        self.phase, self.link_copied = "processing", False
        self.status_label, self.status_reason, self.public_url = "Processing", "", ""
        return SubmitState.check_processing

    def _follow(self, session: Any, user: User, test: Any) -> None:
        """Show a submitted Test's processing view, read from the database.

        Reflex runs ``on_load`` again whenever the event socket reconnects, and a page whose
        replica died comes back with a new session token and an empty state: the dead
        replica's record of the socket stays in Redis, so Reflex takes the page for a second
        tab. The address and the database still say which Test the page was following.
        """
        self.draft_id, self.phase, self.link_copied = test.id, "processing", False
        self.public_url = self.public_link = ""
        self._checking = False  # a check in flight may have died with the replica running it
        self._show(submissions.processing_status(session, user, test.id))

    def _show(self, view: submissions.StatusView) -> None:
        self.status_label, self.status_reason = view.plain_status, view.reason
        self.files = file_rows(view.files)
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
                self._show(view)
        finally:
            async with self:
                self._checking = False
