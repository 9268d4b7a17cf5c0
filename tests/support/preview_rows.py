"""Public Tests with a source ZIP and a recorded preview evaluation, written straight to the
database: for the pages that show previews (a comparison group, /operations) without running
a browser in a sandbox for each."""

from __future__ import annotations

import json
from typing import Any

from sqlmodel import Session

from benchmax.adapters.sandbox import TEMPLATE
from benchmax.models import EvidenceKind, PreviewEvaluation, PreviewState, Test
from benchmax.models._base import utcnow
from benchmax.services.preview.jobs import REASON_FAILED
from tests.support.factories import make_evidence, make_test

AXE = {
    "version": "4.10.2",
    "violations": [
        {"id": "color-contrast", "impact": "serious", "help": "Contrast", "nodes": 2},
        {"id": "region", "impact": "moderate", "help": "Landmarks", "nodes": 1},
    ],
}


def previewed_test(
    session: Session, prompt: str, state: PreviewState | None, **evaluation: Any
) -> Test:
    """A public Test with an approved source ZIP and, unless ``state`` is None, its preview."""
    test = make_test(session, prompt=prompt)
    source = make_evidence(
        session,
        test,
        kind=EvidenceKind.SOURCE,
        content_type="application/zip",
        original_name="site.zip",
        safe_name="site.zip",
        sha256="a" * 64,
    )
    if state is None:
        return test
    values: dict[str, Any] = {
        "test_id": test.id,
        "evidence_id": source.id,
        "zip_sha256": source.sha256,
        "template": TEMPLATE,
        "template_hash": "b" * 64,
        "sandbox": "local",
        "state": state,
        "attempts": 1,
        "finished_at": utcnow(),
    }
    values.update(evaluation)
    session.add(PreviewEvaluation(**values))
    session.flush()
    return test


def done(session: Session, prompt: str, load_ms: int, errors: int) -> Test:
    """A finished preview: two axe-core rules failed, one of them serious."""
    result = {"status": "ok", "axe": AXE, "console_error_count": errors, "load_ms": load_ms}
    return previewed_test(
        session,
        prompt,
        PreviewState.DONE,
        load_ms=load_ms,
        console_error_count=errors,
        axe_violation_count=len(AXE["violations"]),
        result_json=json.dumps(result),
    )


def failed(session: Session, prompt: str, code: str, detail: str) -> Test:
    """A preview the evaluator gave up on, with its technical code and message."""
    result = {"status": "failed", "reason": code, "summary": "The page did not finish loading."}
    return previewed_test(
        session,
        prompt,
        PreviewState.FAILED,
        reader_reason=REASON_FAILED,
        error_code=code,
        duration_ms=31_500,
        result_json=json.dumps({**result, "detail": detail}),
    )
