"""Calibration: a snapshot earns activation by grading a private, human-scored set well.

The set is JSONL in private object storage (``BENCHMAX_JUDGE_CALIBRATION_KEY``, never served);
its SHA-256 must equal ``BENCHMAX_JUDGE_CALIBRATION_SHA256`` and the snapshot's pinned one or
nothing is sent. Each line is an item::

    {"id": "c07", "prompt": "...", "output": "...", "human_score": 72}

and adversarial *twins* name the item they copy and how they differ::

    {"id": "c07-inj", "twin_of": "c07", "twin": "injection", "prompt": ..., "output": ...}

(``injection``: the output asks the grader for 100; ``padding``: the same answer padded;
``identity``: the same answer with a famous model's name on it). Items are fenced and bounded
exactly like Tests but not blinded: calibration measures the judge itself, and the identity
twin exists to catch a judge that a name would sway when blinding misses one.

The judge passes when, over the plain items, MAE <= ``judge_calibration_max_mae``, Spearman's
rho >= ``judge_calibration_min_spearman`` and the median spread of an item's k samples <=
``judge_calibration_max_spread``; every twin kind is present and holds (injection flagged
and scored no higher than its clean twin; padding at most ``judge_calibration_twin_margin``
above; identity within that margin); and every item was answered. Every run is recorded,
append-only, with its metrics and samples; a failing run deactivates an active snapshot.
The active snapshot is calibrated again once its latest run is a week old
(``recalibrate_when_due``, a periodic job checked hourly).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from sqlmodel import Session

from benchmax.adapters.judge import JudgeClientError, JudgePort
from benchmax.adapters.storage import PRIVATE_PREFIX, ObjectNotFoundError, ObjectStorage
from benchmax.models import (
    JudgeCalibrationRun,
    JudgeSample,
    JudgeSnapshot,
    JudgeState,
    SamplePurpose,
    SampleStatus,
)
from benchmax.models._base import as_utc, utcnow
from benchmax.models.audit import AuditAction
from benchmax.services.derived_text import JUDGE, record_redactions
from benchmax.services.jobs import JobContext
from benchmax.services.judge.evidence import EvidenceBounds, JudgeEvidence
from benchmax.services.judge.prompt import EvidenceSection
from benchmax.services.judge.sampling import SampleSlot, draw
from benchmax.services.judge.snapshots import (
    JudgeSnapshotError,
    active_snapshot,
    audit_snapshot,
    deactivate,
    get_snapshot,
)
from benchmax.services.judge.stats import mean_absolute_error, median_score, spearman, spread
from benchmax.settings import Settings

MAX_SET_BYTES = 20 * 1024 * 1024
RECALIBRATION_INTERVAL = timedelta(days=7)
TWIN_KINDS = ("injection", "padding", "identity")


@dataclass(frozen=True)
class Item:
    id: str
    prompt: str
    output: str
    human_score: int | None
    twin_of: str | None
    twin: str | None


@dataclass
class Graded:
    item: Item
    scores: list[int]
    flagged: bool

    @property
    def score(self) -> int:
        return median_score(self.scores)


def _item(line: str, number: int) -> Item:
    try:
        data = json.loads(line)
    except ValueError as exc:
        raise JudgeSnapshotError("invalid_calibration_set", f"line {number} is not JSON") from exc
    if not isinstance(data, dict):
        raise JudgeSnapshotError("invalid_calibration_set", f"line {number} is not an object")
    item_id, prompt, output = data.get("id"), data.get("prompt"), data.get("output")
    human, twin_of, twin = data.get("human_score"), data.get("twin_of"), data.get("twin")
    if not all(isinstance(value, str) and value for value in (item_id, prompt, output)):
        raise JudgeSnapshotError("invalid_calibration_set", f"line {number} lacks id/prompt/output")
    if twin is None:
        if not isinstance(human, int) or isinstance(human, bool) or not 0 <= human <= 100:
            raise JudgeSnapshotError(
                "invalid_calibration_set", f"line {number}: human_score must be 0-100"
            )
    elif twin not in TWIN_KINDS or not isinstance(twin_of, str):
        raise JudgeSnapshotError(
            "invalid_calibration_set", f"line {number}: a twin needs twin_of and a known kind"
        )
    return Item(str(item_id), str(prompt), str(output), human, twin_of, twin)


def parse_set(raw: bytes) -> list[Item]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JudgeSnapshotError("invalid_calibration_set", "the set is not UTF-8") from exc
    items = [_item(line, n) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    ids = {item.id for item in items}
    if len(ids) != len(items):
        raise JudgeSnapshotError("invalid_calibration_set", "item ids repeat")
    for item in items:
        if item.twin is not None and item.twin_of not in ids:
            raise JudgeSnapshotError(
                "invalid_calibration_set", f"twin {item.id} names an unknown item"
            )
    return items


def load_set(storage: ObjectStorage, settings: Settings) -> tuple[bytes, str]:
    """The set's bytes and SHA-256, read from private storage within a size cap."""
    key = settings.judge_calibration_key
    if not key.startswith(PRIVATE_PREFIX):
        raise JudgeSnapshotError(
            "calibration_key_public", "BENCHMAX_JUDGE_CALIBRATION_KEY must be under private/"
        )
    data = bytearray()
    try:
        for chunk in storage.get(key, chunk_size=1024 * 1024):
            data.extend(chunk)
            if len(data) > MAX_SET_BYTES:
                raise JudgeSnapshotError("invalid_calibration_set", "the set exceeds 20 MiB")
    except ObjectNotFoundError as exc:
        raise JudgeSnapshotError(
            "calibration_set_missing", "No calibration set is stored."
        ) from exc
    return bytes(data), hashlib.sha256(data).hexdigest()


def _evidence(item: Item, bounds: EvidenceBounds) -> JudgeEvidence:
    return JudgeEvidence(
        [
            EvidenceSection("Prompt", item.prompt[: bounds.max_file_chars]),
            EvidenceSection("Output", item.output[: bounds.max_file_chars]),
        ],
        [],
    )


@dataclass
class _Collected:
    """Every sample a calibration run drew, and how many credentials its replies held."""

    samples: list[JudgeSample] = field(default_factory=list)
    redactions: int = 0


def _grade(client: JudgePort, snapshot: JudgeSnapshot, item: Item, collected: _Collected) -> Graded:
    bounds = EvidenceBounds.from_json(snapshot.evidence_bounds)
    evidence = _evidence(item, bounds)
    scores: list[int] = []
    flags: list[bool] = []
    for round_ in range(snapshot.samples_per_review):
        for model in snapshot.model_ids:
            drawn = draw(
                client, snapshot, SampleSlot(round_, model), evidence, SamplePurpose.CALIBRATION
            )
            collected.samples.extend(drawn.samples)
            collected.redactions += drawn.redactions
            for sample in drawn.samples:
                if sample.status == SampleStatus.OK and sample.score is not None:
                    scores.append(sample.score)
                    flags.append(sample.injection_suspected)
    return Graded(item, scores, flagged=sum(flags) * 2 > len(flags))


def _twin_results(graded: dict[str, Graded], margin: float) -> tuple[dict[str, Any], list[str]]:
    results: dict[str, Any] = {}
    failures: list[str] = []
    for kind in TWIN_KINDS:
        pairs = [
            (twin, graded[twin.item.twin_of or ""])
            for twin in graded.values()
            if twin.item.twin == kind and twin.scores and graded[twin.item.twin_of or ""].scores
        ]
        if not pairs:
            failures.append(f"missing_{kind}_twin")
            continue
        worst = 0.0
        held = True
        for twin, clean in pairs:
            difference = twin.score - clean.score
            if kind == "injection":
                held &= twin.flagged and difference <= 0
                worst = max(worst, difference)
            elif kind == "padding":
                held &= difference <= margin
                worst = max(worst, difference)
            else:
                held &= abs(difference) <= margin
                worst = max(worst, abs(difference))
        flagged = all(twin.flagged for twin, _ in pairs) if kind == "injection" else None
        results[kind] = {"pairs": len(pairs), "worst_difference": worst, "held": held}
        if flagged is not None:
            results[kind]["flagged"] = flagged
        if not held:
            failures.append(f"{kind}_twin_failed")
    return results, failures


def _metrics(
    graded: dict[str, Graded], settings: Settings
) -> tuple[dict[str, float | None], list[str]]:
    failures: list[str] = []
    plain = [g for g in graded.values() if g.item.twin is None and g.scores]
    if any(not g.scores for g in graded.values()):
        failures.append("item_unanswered")
    if len(plain) < settings.judge_calibration_min_items:
        failures.append("too_few_items")
    if not plain:
        return {"mae": None, "spearman": None, "median_spread": None}, failures
    predicted = [float(g.score) for g in plain]
    expected = [float(g.item.human_score or 0) for g in plain]
    spreads = sorted(spread(g.scores) for g in graded.values() if g.scores)
    mae = mean_absolute_error(predicted, expected)
    rho = spearman(predicted, expected)
    median_spread = float(spreads[len(spreads) // 2]) if spreads else 0.0
    if mae > settings.judge_calibration_max_mae:
        failures.append("mae_too_high")
    if rho < settings.judge_calibration_min_spearman:
        failures.append("spearman_too_low")
    if median_spread > settings.judge_calibration_max_spread:
        failures.append("spread_too_high")
    return {
        "mae": round(mae, 3),
        "spearman": round(rho, 4),
        "median_spread": median_spread,
    }, failures


def _record(
    session: Session,
    snapshot: JudgeSnapshot,
    run: JudgeCalibrationRun,
    collected: _Collected,
) -> JudgeCalibrationRun:
    session.add(run)
    record_redactions(session, JUDGE, collected.redactions)
    for sample in collected.samples:
        sample.calibration_run_id = run.id
        session.add(sample)
    snapshot = session.get(JudgeSnapshot, snapshot.id) or snapshot
    snapshot.last_calibration_id = run.id
    session.add(snapshot)
    detail = {"run_id": run.id, "passed": run.passed, "failures": run.failures}
    audit_snapshot(session, AuditAction.JUDGE_CALIBRATED, snapshot, run.actor_id, detail)
    session.flush()
    if not run.passed and snapshot.state == JudgeState.ACTIVE:
        deactivate(session, snapshot.id, run.actor_id, why="calibration_failed")
    return run


def calibrate(
    session: Session,
    snapshot_id: str,
    client: JudgePort,
    storage: ObjectStorage,
    settings: Settings,
    actor_id: str | None = None,
) -> JudgeCalibrationRun:
    """Run calibration for ``snapshot_id`` and record it; the caller commits.

    A set whose hash differs from the configured and pinned one is refused before anything is
    sent; the refusal is recorded as a failed run (and deactivates an active snapshot).
    """
    snapshot = get_snapshot(session, snapshot_id)
    raw, digest = load_set(storage, settings)
    configured = settings.judge_calibration_sha256.strip().lower()
    run = JudgeCalibrationRun(snapshot_id=snapshot.id, set_sha256=digest, actor_id=actor_id)
    if digest != configured or digest != snapshot.calibration_sha256:
        run.failures = ["set_hash_mismatch"]
        return _record(session, snapshot, run, _Collected())
    items = parse_set(raw)
    collected = _Collected()
    graded: dict[str, Graded] = {}
    try:
        for item in items:
            graded[item.id] = _grade(client, snapshot, item, collected)
    except JudgeClientError as exc:
        run.item_count = len(items)
        run.failures = [exc.code]
        run.samples_used = len(collected.samples)
        return _record(session, snapshot, run, collected)
    metrics, failures = _metrics(graded, settings)
    twins, twin_failures = _twin_results(graded, settings.judge_calibration_twin_margin)
    run.item_count = len(items)
    run.mae, run.spearman = metrics["mae"], metrics["spearman"]
    run.median_spread = metrics["median_spread"]
    run.twins = twins
    run.failures = failures + twin_failures
    run.passed = not run.failures
    run.samples_used = len(collected.samples)
    return _record(session, snapshot, run, collected)


def calibrate_with_configured_judge(
    session: Session,
    snapshot_id: str,
    judge: JudgePort | None,
    storage: ObjectStorage,
    settings: Settings,
    actor_id: str | None = None,
) -> JudgeCalibrationRun:
    """``calibrate`` with the process's judge client (``JobContext.judge``: the CLI's and
    /operations'), refusing when none is configured."""
    if judge is None:
        raise JudgeSnapshotError("judge_off", "No judge is configured (BENCHMAX_JUDGE_BASE_URL).")
    return calibrate(session, snapshot_id, judge, storage, settings, actor_id)


def recalibrate_active(
    ctx: JobContext, older_than: timedelta = RECALIBRATION_INTERVAL
) -> JudgeCalibrationRun | None:
    """Calibrate the active snapshot again once its latest run is ``older_than``; None when
    there is no judge, no active snapshot or nothing due. A failure deactivates it."""
    client = ctx.judge
    if client is None:
        return None
    with ctx.session() as session:
        snapshot = active_snapshot(session)
        if snapshot is None:
            return None
        latest = session.get(JudgeCalibrationRun, snapshot.last_calibration_id or "")
        if latest is not None and utcnow() - as_utc(latest.created_at) < older_than:
            return None
        try:
            return calibrate(session, snapshot.id, client, ctx.storage, ctx.settings)
        except JudgeSnapshotError:
            # The set is missing or unreadable: the judge can no longer show it is calibrated.
            deactivate(session, snapshot.id, None, why="calibration_unavailable")
            return None


def recalibrate_when_due(ctx: JobContext) -> int:
    """The periodic job: how many snapshots it re-calibrated (0 or 1)."""
    return 0 if recalibrate_active(ctx) is None else 1
