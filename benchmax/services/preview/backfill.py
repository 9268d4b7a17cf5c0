"""Redacting preview results stored before the derived-text gate existed.

New results pass the gate as the job stores them (``jobs._finish``). Rows and
``result.json`` objects written earlier may hold a key a page printed; this rewrites each
such row and object in place through the same gate, counting what it removes. It reads rows
in id order, a batch at a time, and only writes where something was found, so running it
again finds nothing to do.
"""

from __future__ import annotations

import json

from sqlmodel import Session, col, select

from benchmax.adapters.sandbox import RESULT_FILE
from benchmax.models import PreviewArtifact, PreviewArtifactKind, PreviewEvaluation
from benchmax.services.derived_text import PREVIEW, gate
from benchmax.services.jobs import JobContext
from benchmax.services.stored_bytes import put_bytes

BATCH = 200


def redact_stored_results(ctx: JobContext) -> int:
    """Rewrite every stored preview result that holds a credential; the number rewritten."""
    rewritten = 0
    after = ""
    while True:
        with ctx.session() as session:
            batch = session.exec(
                select(PreviewEvaluation)
                .where(col(PreviewEvaluation.id) > after, PreviewEvaluation.result_json != "")
                .order_by(col(PreviewEvaluation.id))
                .limit(BATCH)
            ).all()
            for evaluation in batch:
                rewritten += _rewrite(ctx, session, evaluation)
        if len(batch) < BATCH:
            return rewritten
        after = batch[-1].id


def _rewrite(ctx: JobContext, session: Session, evaluation: PreviewEvaluation) -> int:
    """Redact one row and its result object; 1 when anything was removed. The object is
    written before the row commits: should the commit fail, the object no longer matches its
    recorded size and the user-content origin refuses it (fail closed)."""
    try:
        result = json.loads(evaluation.result_json)
    except ValueError:
        return 0
    cleaned = gate(session, PREVIEW, result)
    if not cleaned.count:
        return 0
    body = json.dumps(cleaned.value, sort_keys=True, ensure_ascii=False)
    evaluation.result_json = body
    session.add(evaluation)
    artifact = session.exec(
        select(PreviewArtifact).where(
            PreviewArtifact.evaluation_id == evaluation.id,
            PreviewArtifact.kind == PreviewArtifactKind.RESULT,
        )
    ).first()
    if artifact is not None and artifact.storage_key.endswith(f"/{RESULT_FILE}"):
        columns = put_bytes(ctx.storage, artifact.storage_key, body.encode(), artifact.content_type)
        artifact.size_bytes, artifact.sha256 = columns["size_bytes"], columns["sha256"]
        session.add(artifact)
    return 1
