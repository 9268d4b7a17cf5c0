"""The wizard's file rows: each evidence file of the draft as step 3, the review step and the
processing view show it, with a warning when the same file seems to be there twice."""

from __future__ import annotations

from dataclasses import dataclass

from benchmax.presentation.formatting import size_text
from benchmax.services.submissions import FileStatus


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
