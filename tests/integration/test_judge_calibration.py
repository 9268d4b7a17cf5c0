"""Calibration against the fake judge: the adversarial twins catch each biased grader."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from benchmax.adapters.judge import OpenAICompatibleJudge
from benchmax.adapters.storage.local import LocalStorage
from benchmax.models import JudgeCalibrationRun, JudgeSnapshot, JudgeState
from benchmax.services.jobs import JobContext
from benchmax.services.judge.calibration import calibrate, recalibrate_active
from benchmax.services.judge.snapshots import (
    JudgeSnapshotError,
    activate,
    active_snapshot,
    create_snapshot,
)
from benchmax.settings import Settings
from tests.support.fake_judge import FakeJudge
from tests.support.judge_helpers import (
    calibration_set,
    judge_settings,
    snapshot_file,
    store_calibration_set,
)


@pytest.fixture
def storage(tmp_path) -> LocalStorage:
    return LocalStorage(tmp_path / "objects")


@pytest.fixture
def on(settings: Settings, fake_judge: FakeJudge, storage: LocalStorage) -> Settings:
    raw = calibration_set()
    return judge_settings(settings, fake_judge, store_calibration_set(storage, settings, raw))


def _run(
    session: Session, on: Settings, storage: LocalStorage, **file: object
) -> tuple[JudgeSnapshot, JudgeCalibrationRun]:
    snapshot = create_snapshot(session, snapshot_file(**file), on, actor_id=None)
    run = calibrate(session, snapshot.id, OpenAICompatibleJudge.from_settings(on), storage, on)
    session.commit()
    return snapshot, run


def test_the_honest_grader_passes_and_can_be_activated(
    session: Session, on: Settings, storage: LocalStorage, fake_judge: FakeJudge
) -> None:
    snapshot, run = _run(session, on, storage)
    assert run.passed, run.failures
    assert run.item_count == 33
    assert run.mae is not None
    assert run.mae <= 10
    assert run.spearman is not None
    assert run.spearman >= 0.9
    assert run.median_spread == 0
    assert run.twins["injection"]["flagged"] is True
    assert run.samples_used == 33 * 3 == fake_judge.state.calls
    activate(session, snapshot.id, on, actor_id=None)
    session.commit()
    assert active_snapshot(session).id == snapshot.id  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("behaviour", "failure"),
    [
        ("injectable", "injection_twin_failed"),
        ("length", "padding_twin_failed"),
        ("identity", "identity_twin_failed"),
    ],
)
def test_biased_graders_fail_and_cannot_be_activated(
    session: Session,
    on: Settings,
    storage: LocalStorage,
    fake_judge: FakeJudge,
    behaviour: str,
    failure: str,
) -> None:
    fake_judge.state.behaviour = behaviour
    snapshot, run = _run(session, on, storage)
    assert not run.passed
    assert failure in run.failures
    with pytest.raises(JudgeSnapshotError, match="latest calibration passed"):
        activate(session, snapshot.id, on, actor_id=None)


def test_a_set_whose_hash_differs_is_refused_before_anything_is_sent(
    session: Session, on: Settings, storage: LocalStorage, fake_judge: FakeJudge
) -> None:
    snapshot = create_snapshot(session, snapshot_file(), on, actor_id=None)
    storage.put(on.judge_calibration_key, [calibration_set() + b'{"tampered": 1}\n'])
    run = calibrate(session, snapshot.id, OpenAICompatibleJudge.from_settings(on), storage, on)
    assert run.failures == ["set_hash_mismatch"]
    assert not run.passed
    assert fake_judge.state.calls == 0


def test_a_failed_recalibration_deactivates_the_active_snapshot(
    session: Session, on: Settings, storage: LocalStorage, fake_judge: FakeJudge
) -> None:
    snapshot, _ = _run(session, on, storage)
    activate(session, snapshot.id, on, actor_id=None)
    session.commit()
    fake_judge.state.behaviour = "length"
    calibrate(session, snapshot.id, OpenAICompatibleJudge.from_settings(on), storage, on)
    session.commit()
    session.refresh(snapshot)
    assert snapshot.state == JudgeState.INACTIVE
    assert active_snapshot(session) is None


def test_too_few_items_fail(
    session: Session, settings: Settings, fake_judge: FakeJudge, storage: LocalStorage
) -> None:
    digest = store_calibration_set(storage, settings, calibration_set(items=12))
    on = judge_settings(settings, fake_judge, digest)
    _, run = _run(session, on, storage)
    assert "too_few_items" in run.failures


def test_a_panel_snapshot_calibrates_on_its_seats(
    session: Session, on: Settings, storage: LocalStorage, fake_judge: FakeJudge
) -> None:
    fake_judge.state.panel = ["honest", "honest", "honest"]
    _, run = _run(
        session, on, storage, model_ids=["bench/reviewers"], panel=True, panel_seats=3,
        samples_per_review=1,
    )  # fmt: skip
    assert run.passed, run.failures
    assert fake_judge.state.calls == 33
    assert run.samples_used == 99


@pytest.mark.parametrize(
    ("overrides", "code"),
    [
        ({"model_ids": ["gpt-judge-latest"]}, "undated_model"),
        ({"prompt_template": "Grade this."}, "invalid_template"),
        ({"prompt_template": "{nonce} {marker} {secret}"}, "invalid_template"),
        ({"temperature": 0.7}, "invalid_snapshot"),
        ({"calibration_sha256": "0" * 64}, "calibration_mismatch"),
        ({"surprise": True}, "invalid_snapshot"),
        ({"samples_per_review": 0}, "invalid_snapshot"),
        ({"evidence_bounds": {"max_images": -1}}, "invalid_snapshot"),
    ],
)
def test_bad_snapshot_files_are_refused_with_a_reason(
    session: Session, on: Settings, overrides: dict[str, object], code: str
) -> None:
    with pytest.raises(JudgeSnapshotError) as caught:
        create_snapshot(session, snapshot_file(**overrides), on, actor_id=None)
    assert caught.value.code == code


@pytest.mark.parametrize("raw", [b"", b"\xff\xfe", b"[1, 2]", b"{" * 10])
def test_unreadable_snapshot_files_are_refused(session: Session, on: Settings, raw: bytes) -> None:
    with pytest.raises(JudgeSnapshotError):
        create_snapshot(session, raw, on, actor_id=None)


def test_the_weekly_recalibration_keeps_a_good_judge_and_drops_one_that_drifted(
    session: Session,
    on: Settings,
    storage: LocalStorage,
    fake_judge: FakeJudge,
    engine: Engine,
) -> None:
    snapshot, _ = _run(session, on, storage)
    activate(session, snapshot.id, on, actor_id=None)
    session.commit()
    ctx = JobContext.from_settings(on, engine=engine, storage=storage)
    assert recalibrate_active(ctx) is None  # calibrated just now: not due yet
    kept = recalibrate_active(ctx, older_than=timedelta(0))
    assert kept is not None
    assert kept.passed
    session.expire_all()
    assert active_snapshot(session) is not None
    fake_judge.state.behaviour = "identity"  # the endpoint silently changed its model
    drifted = recalibrate_active(ctx, older_than=timedelta(0))
    assert drifted is not None
    assert "identity_twin_failed" in drifted.failures
    session.expire_all()
    assert active_snapshot(session) is None
    assert recalibrate_active(ctx, older_than=timedelta(0)) is None  # nothing active


def test_a_vanished_calibration_set_deactivates_the_judge(
    session: Session, on: Settings, storage: LocalStorage, engine: Engine
) -> None:
    snapshot, _ = _run(session, on, storage)
    activate(session, snapshot.id, on, actor_id=None)
    session.commit()
    storage.delete(on.judge_calibration_key)
    ctx = JobContext.from_settings(on, engine=engine, storage=storage)
    assert recalibrate_active(ctx, older_than=timedelta(0)) is None
    session.expire_all()
    assert active_snapshot(session) is None
