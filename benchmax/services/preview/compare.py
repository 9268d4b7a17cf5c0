"""Preview figures for Tests shown side by side (a same-prompt comparison group).

The Test page's view with only what a column compares at a glance: the screenshot, load
time, console error count and a short accessibility summary; or the status that says why
there is nothing to compare. Three queries for the Tests shown, however many they are.
"""

from __future__ import annotations

from sqlmodel import Session, col, select

from benchmax.models import (
    EvidenceFile,
    EvidenceKind,
    EvidenceState,
    PreviewArtifact,
    PreviewArtifactKind,
    PreviewEvaluation,
)
from benchmax.services.preview.view import (
    PreviewView,
    accessibility_text,
    artifact_url,
    evaluation_result,
    load_time_text,
    reader_status,
)
from benchmax.settings import Settings


def preview_figures(
    session: Session, settings: Settings, test_ids: list[str]
) -> dict[str, PreviewView]:
    """Each public Test's preview figures, by Test id (callers pass public Tests only)."""
    if not test_ids:
        return {}
    approved = session.exec(
        select(EvidenceFile.id, EvidenceFile.test_id).where(
            col(EvidenceFile.test_id).in_(test_ids),
            EvidenceFile.kind == EvidenceKind.SOURCE,
            EvidenceFile.state == EvidenceState.APPROVED,
        )
    ).all()
    with_source = {test_id for _, test_id in approved}
    latest: dict[str, PreviewEvaluation] = {}
    # Figures derived from a ZIP count only while that ZIP is approved.
    for evaluation in session.exec(
        select(PreviewEvaluation)
        .where(
            col(PreviewEvaluation.test_id).in_(with_source),
            col(PreviewEvaluation.evidence_id).in_([file_id for file_id, _ in approved]),
        )
        .order_by(col(PreviewEvaluation.created_at))
    ):
        latest[evaluation.test_id] = evaluation
    shots = {
        artifact.evaluation_id: artifact_url(settings.usercontent_origin, artifact)
        for artifact in session.exec(
            select(PreviewArtifact).where(
                col(PreviewArtifact.evaluation_id).in_([e.id for e in latest.values()]),
                PreviewArtifact.kind == PreviewArtifactKind.SCREENSHOT,
            )
        )
    }
    return {
        test_id: _figures(settings, latest.get(test_id), shots)
        if test_id in with_source
        else PreviewView()
        for test_id in test_ids
    }


def _figures(
    settings: Settings, evaluation: PreviewEvaluation | None, shots: dict[str, str]
) -> PreviewView:
    status, reason = reader_status(settings, evaluation)
    if evaluation is None or status != "done":
        return PreviewView(status=status, reason=reason)
    return PreviewView(
        status=status,
        screenshot_url=shots.get(evaluation.id, ""),
        load_time=load_time_text(evaluation),
        console_error_count=evaluation.console_error_count or 0,
        accessibility=accessibility_text(evaluation_result(evaluation), with_version=False),
    )
