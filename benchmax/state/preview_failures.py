"""The "Preview failures" rows of ``/operations``: the technical side of "the preview failed".

Loaded with the rest of the dashboard (the same owner check, the same live refresh); the
Test page itself only ever shows the plain reason.
"""

from __future__ import annotations

from typing import Any

from benchmax.context import app_context
from benchmax.services.preview.failures import recent_failures
from benchmax.state.views.preview_failures import PreviewFailureRow


def preview_failure_rows(owner: Any) -> list[PreviewFailureRow]:
    """Raises ``Forbidden`` for anyone but an active owner, like the rest of the dashboard."""
    with app_context().session() as session:
        return [PreviewFailureRow.of(failure) for failure in recent_failures(session, owner)]
