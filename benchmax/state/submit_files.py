"""The wizard's file rows: each evidence file of the draft as step 3 and the processing view
show it."""

from __future__ import annotations

from dataclasses import dataclass

from benchmax.services.submissions import FileStatus
from benchmax.state.views import size_text


@dataclass(frozen=True)
class WizardFile:
    id: str
    name: str
    kind: str
    state: str  # quarantined, approved or blocked
    reason: str  # why it was blocked; empty otherwise
    size: str

    @classmethod
    def of(cls, item: FileStatus) -> WizardFile:
        return cls(
            id=item.id,
            name=item.name,
            kind=item.kind or "",
            state=item.state,
            reason=item.reason or "",
            size=size_text(item.size_bytes),
        )

    @property
    def is_zip(self) -> bool:
        return self.kind == "source" or self.name.lower().endswith(".zip")


def file_rows(files: list[FileStatus]) -> list[WizardFile]:
    """The draft's files still held (removed ones are history, not rows)."""
    return [WizardFile.of(item) for item in files if item.state != "removed"]
