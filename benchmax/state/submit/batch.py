"""The wizard's batch substate: one prompt, several setups as rows, one submission.

Step 2 offers "several setups": each row is one setup (its declared model and version,
harness, reasoning, attempts, settings, output and, when imported, the gateway's call id),
and submitting makes one Test per row through ``submissions.batch`` — each checked and
scanned on its own and counted against the account's submission rate. The prompt is the
draft's (step 1); the draft stays a draft, so more setups can follow.

Rows follow the draft's rule for text: the inputs are uncontrolled, a field's value reaches
this state on blur only once ``clean_fields`` accepts it, and a refused value (a pasted key)
stays in the browser with the reason beside it; its row is refused with those words when the
batch is submitted, and the other rows go through the service, which checks each again and
names what it refuses. Rows that became Tests leave the form; a refused row stays, keyed by
its own id, with what was typed in it. Nothing larger than one field travels at a time, so
no message outgrows the page's live connection.

A panel reply (pasted, or a file read into the paste box by ``assets/panel_import.js``) is
read by ``submissions.panel`` into rows to edit, with the seats it skipped and why; the reply
itself is never kept.
"""

from __future__ import annotations

import secrets
from typing import Any

import reflex as rx

from benchmax.context import app_context
from benchmax.services.errors import ServiceError
from benchmax.services.safety import SafetyLimits
from benchmax.services.submissions.batch import (
    MAX_SETUPS,
    PER_SETUP_FIELDS,
    Batch,
    SetupOutcome,
    slot_by_tests,
    submit_batch,
)
from benchmax.services.submissions.fields import clean_fields
from benchmax.services.submissions.idempotency import idempotency_digest
from benchmax.services.submissions.panel import MAX_REPLY_BYTES, read_panel_reply, reply_too_large
from benchmax.state.submit.draft import WizardDraftState
from benchmax.state.submit.wizard import SESSION_ENDED, WizardState

ROW_FIELDS = PER_SETUP_FIELDS


def _blank_row(key: str, origin: str = "") -> dict[str, str]:
    return {"key": key, "origin": origin, **dict.fromkeys(ROW_FIELDS, "")}


class WizardBatchState(WizardState):
    # "single": the one setup of steps 2 to 5; "several": rows, submitted from step 2.
    mode: rx.Field[str] = rx.field("single")
    rows: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)
    # Refusals by "row key:field"; a message under the row for what names no field.
    row_errors: rx.Field[dict[str, str]] = rx.field(default_factory=dict)
    skipped: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)
    import_error: rx.Field[str] = rx.field("")
    import_note: rx.Field[str] = rx.field("")
    results: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)
    batch_error: rx.Field[str] = rx.field("")
    # Changes after every submission: a second click on the same form replays the first.
    nonce: rx.Field[str] = rx.field("")
    submitting: rx.Field[bool] = rx.field(False)
    # Row fields whose typed text the blur check refused, with why: that text was never
    # sent on, and its row is not submitted until the field is put right.
    _held: dict[str, str] = {}
    _next_row: int = 0

    @rx.var
    def several(self) -> bool:
        return self.mode == "several"

    @rx.var
    def submit_label(self) -> str:
        count = len(self.rows)
        return "Submit 1 setup" if count == 1 else f"Submit {count} setups"

    def _new_key(self) -> str:
        self._next_row += 1
        return f"r{self._next_row}"

    @rx.event
    def set_mode(self, mode: str) -> None:
        self.mode = "several" if mode == "several" else "single"
        if self.mode == "several" and not self.rows:
            self.rows = [_blank_row(self._new_key()), _blank_row(self._new_key())]
        if not self.nonce:
            self.nonce = secrets.token_hex(8)

    @rx.event
    def add_row(self) -> Any:
        if len(self.rows) >= MAX_SETUPS:
            self.batch_error = f"A batch holds at most {MAX_SETUPS} setups."
            return None
        key = self._new_key()
        self.rows = [*self.rows, _blank_row(key)]
        return _focus(f"row-{key}-model_label")

    @rx.event
    def remove_row(self, key: str) -> Any:
        self.rows = [row for row in self.rows if row["key"] != key]
        self.row_errors = {k: v for k, v in self.row_errors.items() if not k.startswith(key + ":")}
        self._held = {k: v for k, v in self._held.items() if not k.startswith(key + ":")}
        self.batch_error = ""
        return _focus("row-add")  # the pressed button is gone; keep the keyboard in the form

    @rx.event
    def check_field(self, key: str, field: str, value: str) -> None:
        """A row field on blur: kept when it would be accepted, else the reason shown."""
        if field not in ROW_FIELDS or not isinstance(value, str):
            return
        error_key = f"{key}:{field}"
        try:
            clean_fields({field: value})
        except ServiceError as refusal:
            self.row_errors = {**self.row_errors, error_key: refusal.message}
            self._held = {**self._held, error_key: refusal.message}
            return
        self.row_errors = {k: v for k, v in self.row_errors.items() if k != error_key}
        self._held = {k: v for k, v in self._held.items() if k != error_key}
        self.rows = [{**row, field: value} if row["key"] == key else row for row in self.rows]

    # --- importing a panel reply -------------------------------------------------------

    @rx.event
    def import_panel(self, text: str, size: int = 0) -> None:
        """Read a pasted or uploaded reply into rows; ``size`` is what the browser measured
        when it held back a reply too large to send (``text`` is then empty)."""
        self.import_error, self.import_note = "", ""
        # Both come from the page, so from anyone: a number and a string, or nothing.
        measured = size if isinstance(size, int) and not isinstance(size, bool) else 0
        try:
            if measured > MAX_REPLY_BYTES:
                raise reply_too_large(measured)
            proposal = read_panel_reply(text if isinstance(text, str) else "")
        except ServiceError as refusal:
            self.import_error = refusal.message
            return
        kept = [row for row in self.rows if any(row[f].strip() for f in ROW_FIELDS)]
        room = MAX_SETUPS - len(kept)
        proposed = proposal.setups[:room]
        rows = []
        for setup in proposed:
            seconds = f", {setup.seconds:g} s" if setup.seconds is not None else ""
            origin = f"Seat {setup.position}" + (f" ({setup.seat}{seconds})" if setup.seat else "")
            rows.append({**_blank_row(self._new_key(), origin), **setup.fields})
        # New rows mount with their own keys; the kept ones keep what the browser holds.
        self.rows = [*kept, *rows]
        self.skipped = [
            {
                "position": str(seat.position),
                "seat": seat.seat or seat.alias or f"seat {seat.position}",
                "alias": seat.alias,
                "status": seat.status or "unknown",
                "reason": seat.reason,
            }
            for seat in proposal.skipped
        ]
        dropped = len(proposal.setups) - len(proposed)
        self.import_note = _import_note(
            proposal.panel, proposal.collection, len(proposed), len(self.skipped), dropped
        )

    # --- submitting --------------------------------------------------------------------

    @rx.event
    async def submit_batch(self, _form: dict[str, Any]) -> Any:
        """Make one Test per row; refused rows stay, with what was typed in them, to be fixed.

        The rows' values are the ones each field's blur check accepted (pressing Submit blurs
        the field last typed in first). A field whose text that check refused still holds it
        in the browser only, so its row is refused again here with the same words, unsent.
        """
        if self.phase != "edit" or self.submitting or not self.rows:
            return None
        user = self._require_user()
        if user is None:
            self.notice = SESSION_ENDED
            return None
        draft = await self.get_state(WizardDraftState)
        held = {row["key"]: self._held_refusal(row["key"]) for row in self.rows}
        sent = [row for row in self.rows if held[row["key"]] is None]
        batch = Batch({"prompt": draft.prompt}, [{f: row[f] for f in ROW_FIELDS} for row in sent])
        key = idempotency_digest(f"wizard-batch:{user.id}:{self.draft_id}:{self.nonce}")
        self.submitting, self.batch_error = True, ""
        try:
            ctx = app_context()
            # A page has no token: its submissions are counted from the account's Tests.
            slot = slot_by_tests(
                ctx.jobs,
                user.id,
                limit=ctx.settings.api_submission_rate_limit,
                window_seconds=ctx.settings.api_submission_rate_window_seconds,
            )
            made = submit_batch(ctx.jobs, user.id, key, batch, SafetyLimits(), slot) if sent else []
        except ServiceError as refusal:
            self.batch_error = refusal.message
            return _focus("batch-error")
        finally:
            self.submitting = False
        self.nonce = secrets.token_hex(8)
        self._settle(dict(zip([row["key"] for row in sent], made, strict=True)), held)
        return _focus("batch-results-box")

    def _settle(
        self, outcomes: dict[str, SetupOutcome], held: dict[str, tuple[str, str] | None]
    ) -> None:
        """The results list, and the rows left to fix: those refused, with why beside them."""
        errors: dict[str, str] = {}
        results, remaining = [], []
        for line, row in enumerate(self.rows, start=1):
            outcome = outcomes.get(row["key"])
            model = row["model_label"].strip()
            label = f"Setup {line}" + (f" · {model}" if model else "")
            if outcome is not None and outcome.refusal is None:
                results.append(
                    {"line": str(line), "label": label, "url": f"/tests/{outcome.test_id}",
                     "id": outcome.test_id, "message": "", "below": ""}
                )  # fmt: skip
                continue
            if outcome is not None and outcome.refusal is not None:
                field = outcome.refusal.field or "row"
                why = (field if field in ROW_FIELDS else "row", outcome.refusal.message)
            else:
                why = held[row["key"]] or ("row", "")
            remaining.append(row)
            # The rows left are numbered afresh below: say which one this became.
            below = "" if len(remaining) == line else f" (now Setup {len(remaining)} below)"
            results.append(
                {"line": str(line), "label": label, "url": "", "id": "", "message": why[1],
                 "below": below}
            )  # fmt: skip
            errors[f"{row['key']}:{why[0]}"] = why[1]
        self.results = results
        self.rows = remaining
        self.row_errors = {
            **{k: v for k, v in self.row_errors.items() if k in self._held},
            **errors,
        }

    def _held_refusal(self, key: str) -> tuple[str, str] | None:
        """The first field of row ``key`` whose typed text the blur check refused."""
        for field in ROW_FIELDS:
            message = self._held.get(f"{key}:{field}")
            if message is not None:
                return field, message
        return None


def _focus(element_id: str) -> Any:
    """Move the keyboard's focus once the page has drawn what this event changed."""
    find = f"document.getElementById({element_id!r})"
    return rx.call_script(f"requestAnimationFrame(() => {find}?.focus())")


def _import_note(panel: str, collection: str, proposed: int, skipped: int, dropped: int) -> str:
    source = f"panel {panel} ({collection})" if panel else f"collection {collection}"
    note = f"Read {source}: {proposed} setup{'s' if proposed != 1 else ''} proposed"
    note += f", {skipped} seat{'s' if skipped != 1 else ''} skipped." if skipped else "."
    if dropped:
        note += f" {dropped} more did not fit: a batch holds at most {MAX_SETUPS} setups."
    return note + " Check every field, then give each setup its reasoning."
