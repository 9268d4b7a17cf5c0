"""The "Preview failures" rows of ``/operations``: the technical side of "the preview failed".

Loaded with the rest of the dashboard (the same owner check, the same live refresh); the
Test page itself only ever shows the plain reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from benchmax.context import app_context
from benchmax.presentation.formatting import count_text
from benchmax.services.dates import clock_time
from benchmax.services.preview.failures import PreviewFailure, recent_failures


@dataclass(frozen=True)
class PreviewFailureRow:
    id: str
    test_title: str
    test_href: str
    state: str
    reader_reason: str
    code: str
    detail: str
    run: str  # "local · 1 attempt · 31.5 s"
    when: str

    @classmethod
    def of(cls, failure: PreviewFailure) -> PreviewFailureRow:
        run = [failure.sandbox or "no sandbox", count_text(failure.attempts, "attempt")]
        if failure.duration_ms is not None:
            run.append(f"{failure.duration_ms / 1000:.1f} s")
        return cls(
            id=failure.evaluation_id,
            test_title=failure.test_title,
            test_href=f"/tests/{failure.test_id}",
            state=failure.state.replace("_", " "),
            reader_reason=failure.reader_reason,
            code=failure.error_code,
            detail=failure.detail,
            run=" · ".join(run),
            when=clock_time(failure.finished_at),
        )


def preview_failure_rows(owner: Any) -> list[PreviewFailureRow]:
    """Raises ``Forbidden`` for anyone but an active owner, like the rest of the dashboard."""
    with app_context().session() as session:
        return [PreviewFailureRow.of(failure) for failure in recent_failures(session, owner)]
