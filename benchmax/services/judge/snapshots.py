"""Judge snapshots: created from a file, active only after passing calibration, one at a time.

A snapshot file is JSON::

    {"name": "Reviewer 2026-12", "provider_label": "Example provider",
     "model_ids": ["judge-model-2026-11-20"], "panel": false, "panel_seats": 1,
     "prompt_template": "... {nonce} ... {marker} ...", "rubric_version": "rubric-1",
     "samples_per_review": 3, "temperature": 0, "seed": 7, "max_output_tokens": 600,
     "evidence_bounds": {"max_total_chars": 60000}}

Model ids must be exact dated ids (a panel's collection name is exempt: its seats report
theirs on every sample). The base-URL host, the output schema's and the template's SHA-256,
the blinding rules' version and the calibration set's SHA-256 (the configured one) are
pinned beside what the file says. Temperature is 0 by design; the file may not change it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session, col, select

from benchmax.models import JudgeCalibrationRun, JudgeSnapshot, JudgeState
from benchmax.models._base import is_public_id, utcnow
from benchmax.models.audit import AuditAction, audit
from benchmax.services.errors import Invalid
from benchmax.services.judge.blinding import BLINDING_VERSION
from benchmax.services.judge.evidence import EvidenceBounds
from benchmax.services.judge.prompt import OUTPUT_SCHEMA_SHA256, template_problem
from benchmax.settings import Settings

MAX_FILE_BYTES = 256 * 1024
_DATED = re.compile(r"(?:19|20)\d{2}-?[01]\d-?[0-3]\d")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_FIELDS = {
    "name", "provider_label", "model_ids", "panel", "panel_seats", "prompt_template",
    "rubric_version", "samples_per_review", "temperature", "seed", "max_output_tokens",
    "evidence_bounds", "calibration_sha256",
}  # fmt: skip


class JudgeSnapshotError(Invalid):
    """A snapshot action refused, with a message an operator can act on. Only operators
    (the CLI and /operations) act on snapshots, and they read the message whatever the kind,
    so one kind serves the file that does not parse and the snapshot that is not there."""


def _text(data: dict[str, Any], key: str, maximum: int) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip() or len(value) > maximum:
        raise JudgeSnapshotError("invalid_snapshot", f"{key} must be text of 1-{maximum} chars")
    return value.strip()


def _int(data: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise JudgeSnapshotError("invalid_snapshot", f"{key} must be a whole number {low}-{high}")
    return value


def _model_ids(data: dict[str, Any], panel: bool) -> list[str]:
    ids = data.get("model_ids")
    if not isinstance(ids, list) or not ids or len(ids) > 8:
        raise JudgeSnapshotError("invalid_snapshot", "model_ids must list 1-8 model ids")
    clean: list[str] = []
    for model in ids:
        if not isinstance(model, str) or not model.strip() or len(model) > 200:
            raise JudgeSnapshotError("invalid_snapshot", "every model id must be 1-200 chars")
        if not panel and not _DATED.search(model):
            raise JudgeSnapshotError(
                "undated_model", f"model id {model!r} is not a dated id; pin the exact version"
            )
        clean.append(model.strip())
    if len(set(clean)) != len(clean):
        raise JudgeSnapshotError("invalid_snapshot", "model_ids repeats a model")
    return clean


def _load(raw: bytes) -> dict[str, Any]:
    if len(raw) > MAX_FILE_BYTES:
        raise JudgeSnapshotError("invalid_snapshot", "the snapshot file is larger than 256 KiB")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise JudgeSnapshotError("invalid_snapshot", "the snapshot file is not JSON") from exc
    if not isinstance(data, dict):
        raise JudgeSnapshotError("invalid_snapshot", "the snapshot file must hold an object")
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise JudgeSnapshotError("invalid_snapshot", f"unknown fields: {', '.join(unknown)}")
    return data


def _calibration_sha256(data: dict[str, Any], settings: Settings) -> str:
    """The configured set's digest, which the file may repeat but never contradict."""
    configured = settings.judge_calibration_sha256.strip().lower()
    if not _SHA256.fullmatch(configured):
        raise JudgeSnapshotError(
            "calibration_unset", "BENCHMAX_JUDGE_CALIBRATION_SHA256 must be a SHA-256 hex digest"
        )
    declared = str(data.get("calibration_sha256", configured)).strip().lower()
    if declared != configured:
        raise JudgeSnapshotError(
            "calibration_mismatch",
            "calibration_sha256 in the file differs from BENCHMAX_JUDGE_CALIBRATION_SHA256",
        )
    return configured


def parse_snapshot_file(raw: bytes, settings: Settings) -> JudgeSnapshot:
    """A new (unsaved) draft snapshot from a snapshot file's bytes; raises on any problem."""
    data = _load(raw)
    if not settings.judge_enabled:
        raise JudgeSnapshotError("judge_off", "set BENCHMAX_JUDGE_BASE_URL first")
    configured = _calibration_sha256(data, settings)
    if data.get("temperature", 0) != 0:
        raise JudgeSnapshotError("invalid_snapshot", "temperature must be 0")
    panel = data.get("panel", False)
    if not isinstance(panel, bool):
        raise JudgeSnapshotError("invalid_snapshot", "panel must be true or false")
    template = _text(data, "prompt_template", 20_000)
    problem = template_problem(template)
    if problem:
        raise JudgeSnapshotError("invalid_template", problem)
    bounds = data.get("evidence_bounds", {})
    if not isinstance(bounds, dict):
        raise JudgeSnapshotError("invalid_snapshot", "evidence_bounds must be an object")
    try:
        evidence_bounds = EvidenceBounds.from_json(bounds)
    except ValueError as exc:
        raise JudgeSnapshotError("invalid_snapshot", str(exc)) from exc
    return JudgeSnapshot(
        name=_text(data, "name", 100),
        provider_label=_text(data, "provider_label", 100),
        base_url_host=(urlsplit(settings.judge_base_url).hostname or "")[:255],
        model_ids=_model_ids(data, panel),
        panel=panel,
        panel_seats=_int(data, "panel_seats", 1, 1, 16) if panel else 1,
        prompt_template=template,
        prompt_template_sha256=hashlib.sha256(template.encode()).hexdigest(),
        output_schema_sha256=OUTPUT_SCHEMA_SHA256,
        rubric_version=_text(data, "rubric_version", 64),
        samples_per_review=_int(data, "samples_per_review", 3, 1, 9),
        temperature=0.0,
        seed=_int(data, "seed", 0, 0, 2**31 - 1),
        max_output_tokens=_int(data, "max_output_tokens", 600, 16, 8192),
        blinding_version=BLINDING_VERSION,
        evidence_bounds=evidence_bounds.to_json(),
        calibration_sha256=configured,
        source_sha256=hashlib.sha256(raw).hexdigest(),
    )


def audit_snapshot(
    session: Session,
    action: AuditAction,
    snapshot: JudgeSnapshot,
    actor_id: str | None,
    detail: Mapping[str, Any],
) -> None:
    """Every change to a snapshot is audited under the same subject, so its history is one query."""
    audit(session, action, ("judge_snapshot", snapshot.id), actor_id=actor_id, detail=detail)


def create_snapshot(
    session: Session, raw: bytes, settings: Settings, actor_id: str | None
) -> JudgeSnapshot:
    snapshot = parse_snapshot_file(raw, settings)
    session.add(snapshot)
    detail = {"source_sha256": snapshot.source_sha256}
    audit_snapshot(session, AuditAction.JUDGE_SNAPSHOT_CREATED, snapshot, actor_id, detail)
    session.flush()
    return snapshot


def get_snapshot(session: Session, snapshot_id: str) -> JudgeSnapshot:
    snapshot = session.get(JudgeSnapshot, snapshot_id) if is_public_id(snapshot_id) else None
    if snapshot is None:
        raise JudgeSnapshotError("snapshot_not_found", "No judge snapshot has this id.")
    return snapshot


def active_snapshot(session: OrmSession) -> JudgeSnapshot | None:
    """The one active snapshot, or None; any SQLAlchemy session will do (the dashboard's)."""
    query = select(JudgeSnapshot).where(JudgeSnapshot.state == JudgeState.ACTIVE)
    return session.execute(query).scalars().first()


def list_snapshots(session: Session) -> list[JudgeSnapshot]:
    return list(
        session.exec(
            select(JudgeSnapshot).order_by(
                col(JudgeSnapshot.created_at).desc(), col(JudgeSnapshot.id)
            )
        ).all()
    )


@dataclass(frozen=True)
class _Change:
    action: AuditAction
    state: JudgeState


def _set_state(
    session: Session, snapshot: JudgeSnapshot, change: _Change, actor_id: str | None, why: str
) -> JudgeSnapshot:
    previous = snapshot.state
    snapshot.state = change.state
    snapshot.state_changed_at = utcnow()
    session.add(snapshot)
    detail = {"from": str(previous), "to": str(change.state), "why": why}
    audit_snapshot(session, change.action, snapshot, actor_id, detail)
    session.flush()
    return snapshot


def activate(
    session: Session, snapshot_id: str, settings: Settings, actor_id: str | None
) -> JudgeSnapshot:
    """Make ``snapshot_id`` the one active judge; its latest calibration must have passed
    against the set configured now, with the code's output schema and blinding rules."""
    snapshot = get_snapshot(session, snapshot_id)
    run = session.get(JudgeCalibrationRun, snapshot.last_calibration_id or "")
    if run is None or not run.passed:
        raise JudgeSnapshotError(
            "not_calibrated", "Only a snapshot whose latest calibration passed can be activated."
        )
    if run.set_sha256 != settings.judge_calibration_sha256.strip().lower():
        raise JudgeSnapshotError(
            "calibration_stale", "The calibration set changed since it passed; calibrate again."
        )
    if (snapshot.output_schema_sha256, snapshot.blinding_version) != (
        OUTPUT_SCHEMA_SHA256,
        BLINDING_VERSION,
    ):
        raise JudgeSnapshotError(
            "snapshot_outdated", "This snapshot pins an older output schema or blinding rules."
        )
    current = active_snapshot(session)
    if current is not None and current.id != snapshot.id:
        _set_state(
            session, current, _Change(AuditAction.JUDGE_DEACTIVATED, JudgeState.INACTIVE), actor_id,
            "replaced",
        )  # fmt: skip
    if snapshot.state != JudgeState.ACTIVE:
        _set_state(
            session,
            snapshot,
            _Change(AuditAction.JUDGE_ACTIVATED, JudgeState.ACTIVE),
            actor_id,
            "passed",
        )
    return snapshot


def deactivate(
    session: Session, snapshot_id: str, actor_id: str | None, why: str = "operator"
) -> JudgeSnapshot:
    snapshot = get_snapshot(session, snapshot_id)
    if snapshot.state == JudgeState.ACTIVE:
        _set_state(
            session,
            snapshot,
            _Change(AuditAction.JUDGE_DEACTIVATED, JudgeState.INACTIVE),
            actor_id,
            why,
        )
    return snapshot
