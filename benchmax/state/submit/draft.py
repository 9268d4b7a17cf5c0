"""The wizard's draft substate: the fields, their saving, and moving between steps.

The draft row is the only copy of what the contributor typed: each field saves itself 800 ms
after the last keystroke (and again when it loses focus), each Next saves the step, so a
reload, a closed tab or a lost connection resumes where they were. A secret in a text field
is refused by the service before anything from that save is stored, and the typed text stays
in the browser so nothing is lost while they fix it.

The step lives in the URL (``/submit?draft=…&step=3``), so the browser's Back and Forward
move between steps and a link opens the step it names; ``on_load`` is the one place a step
is entered, and it refuses a step whose earlier steps still need something. It is also where
a page that names a submitted Test is handed to the processing substate.

Each save carries a stamp from the browser (``assets/wizard.js``): the page compares it with
the stamp of each field's last keystroke to say honestly whether anything is still unsaved,
and warns before the tab is closed or reloaded while it is.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import reflex as rx

from benchmax.context import app_context
from benchmax.models import User
from benchmax.services import submissions
from benchmax.services.catalog import suggest_harnesses, suggest_models
from benchmax.services.errors import ServiceError
from benchmax.services.markdown import render_markdown
from benchmax.state.submit.files import WizardFilesState
from benchmax.state.submit.processing import FOLLOWED_STATES, WizardProcessingState
from benchmax.state.submit.steps import (
    EVIDENCE_STEP,
    LAST_STEP,
    STEP_FIELDS,
    STEP_TITLES,
    TEXT_FIELDS,
    clamp_step,
    first_incomplete,
    saves_to_this_page,
    step_problems,
    wizard_url,
)
from benchmax.state.submit.wizard import SESSION_ENDED, WizardState

# Moves keyboard and screen-reader focus to the step's heading once the new step is drawn.
FOCUS_HEADING = "requestAnimationFrame(() => document.getElementById('wizard-step-title')?.focus())"
PROMPT_COPIED = (
    "The prompt is filled in from that Test, and nothing else was copied: declare your own "
    "setup and evidence, and your Test joins the others that tried this prompt."
)
_REFUSAL_NOTES = {
    "secret_detected": "remove the key",
    "field_too_long": "the text is too long",
    "field_control_chars": "remove the control characters",
    "field_single_line": "keep it to one line",
    "invalid_attempts": "attempts must be a whole number",
}


def _back_after_sign_in(same_prompt_as: str) -> str:
    """The wizard's address to come back to after signing in, quoted to sit in ``next``."""
    if not (same_prompt_as.isascii() and same_prompt_as.isalnum()):
        return "/submit"
    return quote(f"/submit?same_prompt_as={same_prompt_as[:32]}", safe="/")


class WizardDraftState(WizardState):
    # Changes whenever the form is refilled from the server, so uncontrolled inputs remount
    # with the loaded values instead of keeping what the browser last showed.
    form_key: rx.Field[int] = rx.field(0)
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
    # Errors put right on this visit to the step, with their message: it stays, marked as met,
    # so the controls below it do not jump up under a pointer on its way to "Next" (a click
    # that lands as the button moves is lost).
    met: rx.Field[dict[str, str]] = rx.field(default_factory=dict)
    model_suggestions: rx.Field[list[str]] = rx.field(default_factory=list)
    harness_suggestions: rx.Field[list[str]] = rx.field(default_factory=list)
    loaded: rx.Field[bool] = rx.field(False)
    # The save status: per field, the browser stamp of the newest keystroke the server has
    # answered (stored or refused); the refusals still standing; the newest stored stamp.
    answered: rx.Field[dict[str, int]] = rx.field(default_factory=dict)
    refused: rx.Field[dict[str, str]] = rx.field(default_factory=dict)
    saved_stamp: rx.Field[int] = rx.field(0)
    # Where "Sign in" brings a signed-out visitor back to: a "Try this prompt" link survives.
    sign_in_next: rx.Field[str] = rx.field("/submit")

    @rx.var
    def step_title(self) -> str:
        return STEP_TITLES[self.step - 1]

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

    def _fill_from(self, test: Any) -> None:
        self.draft_id = test.id
        for field in TEXT_FIELDS:
            value = getattr(test, field, "")
            setattr(self, field, "" if value is None else str(value))
        self.form_key += 1
        self.refused = {}

    def _named(self, wanted: str) -> Any:
        """The viewer's own Test the URL names, or None."""
        if not wanted:
            return None
        named = self._attempt(
            lambda session, user: (
                None if user is None else submissions.get_own_test(session, user, wanted)
            )
        )
        return None if isinstance(named, ServiceError) else named

    def _with_prompt_of(self, source_id: str) -> Any:
        """ "Try this prompt with your setup": a new draft holding only that Test's prompt.
        The load then moves to the draft's own address, so a reload resumes it rather than
        starting another; a Test that is not public says so, and the wizard opens as usual."""
        made = self._attempt(
            lambda session, user: (
                None
                if user is None
                else submissions.draft_with_prompt_of(
                    session, user, app_context().settings, source_id[:32]
                )
            )
        )
        if isinstance(made, ServiceError):
            self._carried_notice = made.message
            return None
        if made is not None:
            self._carried_notice = PROMPT_COPIED
        return made

    def _resolve(
        self, session: Any, user: User, test: Any, files: WizardFilesState, same_step: bool
    ) -> int:
        """Load the draft the URL names (``test``, or else the latest one) and its files;
        returns its remembered step.

        Moving within one draft's wizard does not refill the fields when the step is the
        same, so a field with a keystroke still waiting to be saved keeps it.
        """
        if test is None:
            test = submissions.latest_draft(session, user)
        if test is None or str(test.state) not in ("draft", "needs_attention"):
            if self.draft_id or not same_step:
                self._reset_form(files)
            return 1
        if not (same_step and test.id == self.draft_id):
            self._fill_from(test)
        files._load_rows(session, user)
        if str(test.state) == "needs_attention":
            return EVIDENCE_STEP  # the files that need fixing are there
        return clamp_step(test.wizard_step)

    @rx.event
    async def on_load(self) -> Any:
        """Enter the step the URL names, or the first earlier step that still needs something."""
        user = self._require_user()
        before = self.step if self.loaded and self.phase == "edit" else 0
        self.notice, self.phase, self.loaded = "", "edit", False
        query = self.router.url.query_parameters
        if user is None:
            self.sign_in_next = _back_after_sign_in(str(query.get("same_prompt_as", "")))
            self.loaded = True
            return None
        draft_in_url, raw_step = self._address_draft(), str(query.get("step", ""))
        same_prompt = str(query.get("same_prompt_as", ""))
        named = self._with_prompt_of(same_prompt) if same_prompt else self._named(draft_in_url)
        if named is not None and str(named.state) in FOLLOWED_STATES:
            processing = await self.get_state(WizardProcessingState)
            await processing._follow(user, named.id)
            self.loaded = True
            return None
        files = await self.get_state(WizardFilesState)
        with app_context().session() as session:
            same_step = before == clamp_step(raw_step, 0)
            remembered = self._resolve(session, user, named, files, same_step)
        wanted = clamp_step(raw_step, remembered)
        self.step, problems = first_incomplete(wanted, self._values(), files._evidence_count())
        if self.draft_id and self.step != remembered:
            self._save({}, self.step)  # so /me's "Resume draft" comes back to this step
        self.errors, self.met = {**self._carried, **problems}, {}
        self.notice = self._carried_notice
        if problems:
            self.notice = f"Step {self.step}, {STEP_TITLES[self.step - 1]}, needs this first."
        self._carried, self._carried_notice = {}, ""
        self.loaded = True
        return self._settle_address((draft_in_url, raw_step), before)

    def _settle_address(self, here: tuple[str, str], before: int) -> list[Any]:
        """After a load: the address corrected to the step shown, and focus on its heading."""
        events: list[Any] = []
        # A new wizard stays at plain /submit; any other step gets its full address, and
        # what this load had to say is said again after the address is corrected.
        if (self.draft_id or self.step > 1 or here[1]) and here != (self.draft_id, str(self.step)):
            self._carried, self._carried_notice = dict(self.errors), self.notice
            events.append(rx.redirect(wizard_url(self.draft_id, self.step), replace=True))
        if before and before != self.step:
            events.append(rx.call_script(FOCUS_HEADING))
        return events

    def _reset_form(self, files: WizardFilesState) -> None:
        self.form_key += 1
        self.draft_id = ""
        self.step = 1
        for field in TEXT_FIELDS:
            setattr(self, field, "")
        self.source_visibility = "private"
        files.files = []
        self.refused, self.saved_stamp = {}, 0

    @rx.event
    async def start_new(self) -> Any:
        """A blank wizard at plain ``/submit``: the address no longer names the Test just
        submitted (or the one whose prompt it copied), so a reload or a shared link does not
        bring that one back."""
        self._reset_form(await self.get_state(WizardFilesState))
        self.errors, self.notice, self.phase = {}, "", "edit"
        return rx.redirect("/submit")

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

    def _address_draft(self) -> str:
        """The draft the page's address names ("" for a new wizard)."""
        return str(self.router.url.query_parameters.get("draft", ""))

    def _save(self, values: dict[str, str], step: int, stamp: int = 0) -> bool:
        """Store ``values``; on refusal show the reason by the field and remember nothing."""
        if not saves_to_this_page(self._address_draft(), self.draft_id):
            return False  # left unanswered, so the page goes on saying the field is not saved

        def store(session: Any, user: User | None) -> str | None:
            if user is None:
                return None
            draft_id = (
                self.draft_id or submissions.create_draft(session, user, app_context().settings).id
            )
            submissions.save_draft(session, user, draft_id, values, step=step)
            return draft_id

        stored = self._attempt(store)
        if stored is None:
            self.notice = SESSION_ENDED
            return False
        if isinstance(stored, ServiceError):
            field = stored.field or "form"
            self.errors = {**self.errors, field: stored.message}
            self._answer(list(values) or [field], stamp, stored.code)
            return False
        # The new draft's id is kept only now that its first save committed: a refused save
        # rolls the row back, and an id remembered from it would point at nothing.
        self.draft_id = stored
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
    def ensure_draft(self) -> None:
        """Called by the upload script when files arrive before anything else was saved."""
        if not self.draft_id:
            self._save({}, self.step)

    # --- moving between steps ----------------------------------------------------------

    @rx.event
    async def next_step(self, form: dict[str, Any]) -> Any:
        """Save this step, check what it needs, and go on; a double click saves twice and
        moves once, because the step only changes when the new URL is loaded."""
        if self.phase != "edit" or self.step >= LAST_STEP:
            return None
        # If no address names the draft (its first save made it), this step's entry is
        # rewritten to name it, so Back returns to this draft rather than to a blank wizard.
        anonymous = not self._address_draft()
        values = {f: str(form[f]) for f in STEP_FIELDS.get(self.step, ()) if f in form}
        if not self._save(values, self.step):
            return None
        files = await self.get_state(WizardFilesState)
        problems = step_problems(self.step, self._values(), files._evidence_count())
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
