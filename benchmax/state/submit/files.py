"""The wizard's files substate: the draft's evidence files as rows, kept current.

Each row is a ``WizardFile`` as step 3, the review step and the processing view show it, with
a warning when the same file seems to be there twice. The upload itself is the browser's
(``assets/uploads.js`` posts each file to the API, then presses the hidden ``#files-refresh``
button, which runs ``refresh_files``); this state reads the rows back from the database,
removes a file, and says whether a safety scan is still running. The processing substate
writes the rows too, as it follows the submitted Test's scans.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import reflex as rx

from benchmax.context import app_context
from benchmax.models import User
from benchmax.presentation.formatting import size_text
from benchmax.services import submissions
from benchmax.services.errors import ServiceError
from benchmax.services.submissions import FileStatus
from benchmax.state.submit.wizard import SESSION_ENDED, WizardState

# How often a view waiting on safety scans asks again (``assets/autorefresh.js`` presses its
# Check now button): step 3's file list and the processing view.
POLL_SECONDS = 1.0


@dataclass(frozen=True)
class WizardFile:
    id: str
    name: str
    kind: str
    state: str  # quarantined, approved or blocked
    reason: str  # why it was blocked; empty otherwise
    size: str
    duplicate: str = ""
    """Why this row looks like another one (same name, or the same bytes); empty otherwise."""

    @property
    def is_zip(self) -> bool:
        return self.kind == "source" or self.name.lower().endswith(".zip")


def _duplicate_note(item: FileStatus, earlier: list[FileStatus]) -> str:
    """Compared with the rows before it only, so the first copy stays unflagged and the
    warning sits on the one to remove."""
    for other in earlier:
        if item.sha256 and item.sha256 == other.sha256:
            return f"Same contents as “{other.name}”: remove one unless you meant both."
    for other in earlier:
        if item.name.casefold() == other.name.casefold():
            return f"Another file is also named “{other.name}”: remove one unless both differ."
    return ""


def file_rows(files: list[FileStatus]) -> list[WizardFile]:
    """The draft's files still held (removed ones are history, not rows)."""
    held = [item for item in files if item.state != "removed"]
    return [
        WizardFile(
            id=item.id,
            name=item.name,
            kind=item.kind or "",
            state=item.state,
            reason=item.reason or "",
            size=size_text(item.size_bytes),
            duplicate=_duplicate_note(item, held[:index]),
        )
        for index, item in enumerate(held)
    ]


class WizardFilesState(WizardState):
    files: rx.Field[list[WizardFile]] = rx.field(default_factory=list)

    @rx.var
    def files_checking(self) -> bool:
        """Whether a file's safety scan is still running (step 3 then polls for verdicts)."""
        return self.phase == "edit" and any(f.state == "quarantined" for f in self.files)

    @rx.var
    def has_zip(self) -> bool:
        return any(f.is_zip for f in self.files)

    def _evidence_count(self) -> int:
        """Files that can count as evidence: a blocked one is not."""
        return sum(1 for f in self.files if f.state != "blocked")

    def _load_rows(self, session: Any, user: User) -> None:
        if not self.draft_id:
            self.files = []
            return
        view = submissions.processing_status(session, user, self.draft_id)
        self.files = file_rows(view.files)

    def _reload_rows(self) -> bool:
        """Read the rows again for the re-verified contributor; False once the session ended."""
        user = self._require_user()
        if user is None:
            return False
        with app_context().session() as session:
            self._load_rows(session, user)
        return True

    @rx.event
    def refresh_files(self) -> None:
        """Called by the page's upload script after each file is stored or refused."""
        if not self._reload_rows():
            self.notice = SESSION_ENDED
            return
        self.errors = {k: v for k, v in self.errors.items() if k != "files"}

    @rx.event
    def remove_file(self, evidence_id: str) -> None:
        draft_id = self.draft_id

        def remove(session: Any, user: User | None) -> bool:
            if user is None or not draft_id:
                return False
            storage = app_context().storage
            submissions.remove_file(session, storage, user, draft_id, evidence_id)
            return True

        removed = self._attempt(remove)
        if removed is False:
            return
        if isinstance(removed, ServiceError):
            self.errors = {**self.errors, "files": removed.message}
        self._reload_rows()
