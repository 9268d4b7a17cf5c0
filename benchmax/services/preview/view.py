"""What the Test page shows of its automated preview, and the contributor's retry.

Readers get the figures and one plain reason; the technical code (``error_code``) stays on
/operations. Artifact URLs point at the user-content origin, which checks again on every
request that the Test is public.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from sqlmodel import Session, col, select

from benchmax.models import (
    PreviewArtifact,
    PreviewArtifactKind,
    PreviewEvaluation,
    PreviewState,
    Test,
    TestState,
)
from benchmax.models._base import utcnow
from benchmax.services.dates import Stamp, next_utc_day, seconds_until, stamp
from benchmax.services.errors import Conflict, NotFound, RateLimited
from benchmax.services.preview import budget
from benchmax.services.preview.fair import enqueue_preview
from benchmax.services.preview.jobs import REASON_OFF, source_zip
from benchmax.services.safety.redact import redact
from benchmax.settings import Settings

SHOWN_MESSAGES = 3
# What an axe-core version looks like; anything else in a result is not shown as one.
AXE_VERSION = re.compile(r"\d{1,3}\.\d{1,3}\.\d{1,3}")


@dataclass(frozen=True)
class PreviewView:
    """``status``: "none" (no source ZIP), "pending", "done" or "unavailable"."""

    status: str = "none"
    reason: str = ""
    screenshot_url: str = ""
    video_url: str = ""
    video_is_image: bool = False
    load_time: str = ""
    console_error_count: int = 0
    console_errors: list[str] = field(default_factory=list)
    accessibility: str = ""
    summary: str = ""
    template: str = ""
    template_hash: str = ""
    finished: Stamp = field(default_factory=Stamp)
    can_retry: bool = False
    # Why the screenshot or recording is missing, when BenchMax withheld it.
    pictures_note: str = ""


def artifact_url(origin: str, artifact: PreviewArtifact) -> str:
    name = artifact.storage_key.rsplit("/", 1)[-1]
    return f"{origin.rstrip('/')}/p/{quote(artifact.id, safe='')}/{quote(name, safe='')}"


def latest_evaluation(
    session: Session, test_id: str, evidence_id: str | None = None
) -> PreviewEvaluation | None:
    """The Test's newest evaluation; of the ZIP ``evidence_id`` only, when given."""
    query = select(PreviewEvaluation).where(PreviewEvaluation.test_id == test_id)
    if evidence_id is not None:
        query = query.where(PreviewEvaluation.evidence_id == evidence_id)
    return session.exec(query.order_by(col(PreviewEvaluation.created_at).desc())).first()


def preview_view(
    session: Session, settings: Settings, test_id: str, *, viewer_id: str | None = None
) -> PreviewView:
    """The preview section of a public Test (empty for any other)."""
    test = session.get(Test, test_id)
    source = source_zip(session, test_id) if test is not None else None
    if test is None or test.state != TestState.PUBLIC or source is None:
        return PreviewView()
    # Only what was derived from the ZIP that is approved now (the evaluation of a ZIP since
    # blocked is not shown, and the user-content origin refuses its artifacts anyway).
    evaluation = latest_evaluation(session, test_id, source.id)
    status, reason = reader_status(settings, evaluation)
    if status == "unavailable":
        failed = evaluation is not None and evaluation.state == PreviewState.FAILED
        retry = failed and viewer_id == test.contributor_id
        return PreviewView(status=status, reason=reason, can_retry=retry)
    if evaluation is None or status != "done":
        return PreviewView(status=status)
    return _done(session, settings, evaluation)


def reader_status(settings: Settings, evaluation: PreviewEvaluation | None) -> tuple[str, str]:
    """A previewable Test's status ("pending", "done" or "unavailable") and plain reason."""
    if evaluation is None:
        off = settings.preview_sandbox == "off"
        return ("unavailable", REASON_OFF) if off else ("pending", "")
    if evaluation.state == PreviewState.PENDING:
        return "pending", ""
    if evaluation.state != PreviewState.DONE:
        return "unavailable", evaluation.reader_reason
    return "done", ""


def load_time_text(evaluation: PreviewEvaluation) -> str:
    return f"{(evaluation.load_ms or 0) / 1000:.2f} s"


def _done(session: Session, settings: Settings, evaluation: PreviewEvaluation) -> PreviewView:
    artifacts = {
        artifact.kind: artifact
        for artifact in session.exec(
            select(PreviewArtifact).where(PreviewArtifact.evaluation_id == evaluation.id)
        )
    }
    origin = settings.usercontent_origin
    shot, video = artifacts.get(PreviewArtifactKind.SCREENSHOT), artifacts.get("video")
    result = evaluation_result(evaluation)
    errors = [str(text) for text in result.get("console_errors") or []][:SHOWN_MESSAGES]
    return PreviewView(
        status="done",
        screenshot_url=artifact_url(origin, shot) if shot else "",
        video_url=artifact_url(origin, video) if video else "",
        video_is_image=bool(video and video.content_type.startswith("image/")),
        load_time=load_time_text(evaluation),
        console_error_count=evaluation.console_error_count or 0,
        console_errors=errors,
        accessibility=accessibility_text(result),
        summary=str(result.get("summary") or ""),
        template=evaluation.template,
        template_hash=evaluation.template_hash[:12],
        finished=stamp(evaluation.finished_at),
        pictures_note=evaluation.reader_reason,
    )


def evaluation_result(evaluation: PreviewEvaluation) -> dict[str, Any]:
    """The stored result JSON; {} when it cannot be read (never a reason to fail a page).

    Results are stored redacted; reading them through the redaction again costs little and
    covers rows written before the gate existed."""
    try:
        parsed = json.loads(evaluation.result_json or "{}")
    except ValueError:
        return {}
    return redact(parsed).value if isinstance(parsed, dict) else {}


def accessibility_text(result: dict[str, Any], *, with_version: bool = True) -> str:
    """The axe-core summary: "2 rules failed (1 serious or critical), axe-core 4.10.2"."""
    axe = result.get("axe") if isinstance(result.get("axe"), dict) else None
    if not axe:
        return "not measured"
    violations = axe.get("violations")
    if not isinstance(violations, list) or not all(isinstance(v, dict) for v in violations):
        return "not measured"
    serious = sum(1 for v in violations if v.get("impact") in ("serious", "critical"))
    rules = "no axe-core rule failed" if not violations else f"{len(violations)} rules failed"
    shown = str(axe.get("version"))
    version = f", axe-core {shown if AXE_VERSION.fullmatch(shown) else '(unknown version)'}"
    version = version if with_version else ""
    return f"{rules} ({serious} serious or critical){version}"


def retry_preview(session: Session, settings: Settings, user_id: str, test_id: str) -> None:
    """The contributor asks for a failed preview again (at most ``preview_retry_daily_limit``
    a day); the same evaluation row goes back to pending, so it is still evaluated once."""
    test = session.get(Test, test_id)
    if test is None or test.state != TestState.PUBLIC or test.contributor_id != user_id:
        raise NotFound("not_found", "This Test does not exist.")
    evaluation = latest_evaluation(session, test_id)
    if evaluation is None or evaluation.state != PreviewState.FAILED:
        raise Conflict("not_failed", "Only a failed preview can be retried.")
    if not budget.take_retry(session, user_id, settings.preview_retry_daily_limit):
        raise RateLimited(
            "preview_retry_limit",
            f"You can retry previews {settings.preview_retry_daily_limit} times a day; "
            "try again tomorrow.",
            retry_after=seconds_until(next_utc_day(utcnow()), utcnow()),
        )
    evaluation.state = PreviewState.PENDING
    evaluation.reader_reason = evaluation.error_code = ""
    evaluation.finished_at = None
    session.add(evaluation)
    enqueue_preview(session, settings, test_id, user_id)
