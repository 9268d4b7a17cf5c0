"""A failed or unrunnable preview as the "Preview failures" rows of ``/operations`` show it."""

from __future__ import annotations

from dataclasses import dataclass

from benchmax.presentation.formatting import count_text
from benchmax.services.dates import Stamp, stamp
from benchmax.services.preview.failures import PreviewFailure


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
    when: Stamp

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
            when=stamp(failure.finished_at),
        )
