"""``benchmax judge ...``: the operator's whole path from a file to an active judge."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmax.cli.main import main
from benchmax.settings import get_settings
from tests.support.fake_judge import FakeJudge
from tests.support.judge_helpers import JUDGE_KEY, calibration_set, snapshot_file


@pytest.fixture
def configured(
    tmp_path: Path, sqlite_url: str, monkeypatch: pytest.MonkeyPatch, fake_judge: FakeJudge
) -> Iterator[Path]:
    raw = calibration_set()
    (tmp_path / "set.jsonl").write_bytes(raw)
    (tmp_path / "snapshot.json").write_bytes(snapshot_file())
    for name, value in {
        "ENV": "test",
        "DATA_DIR": str(tmp_path / "var"),
        "DATABASE_URL": sqlite_url,
        "STORAGE_BACKEND": "local",
        "STORAGE_LOCAL_ROOT": str(tmp_path / "objects"),
        "JUDGE_BASE_URL": fake_judge.base_url,
        "JUDGE_API_KEY": JUDGE_KEY,
        "JUDGE_CALIBRATION_SHA256": hashlib.sha256(raw).hexdigest(),
    }.items():
        monkeypatch.setenv(f"BENCHMAX_{name}", value)
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()


def test_create_calibrate_activate_list_deactivate(
    configured: Path, capsys: pytest.CaptureFixture[str], fake_judge: FakeJudge
) -> None:
    assert main(["judge", "calibration", "upload", str(configured / "set.jsonl")]) == 0
    assert hashlib.sha256(calibration_set()).hexdigest() in capsys.readouterr().out
    assert main(["judge", "snapshot", "create", str(configured / "snapshot.json")]) == 0
    match = re.search(r"snapshot (\w{16}) created", capsys.readouterr().out)
    assert match
    snapshot_id = match.group(1)
    assert main(["judge", "activate", snapshot_id]) == 1
    assert "latest calibration passed" in capsys.readouterr().err
    assert main(["judge", "calibrate", snapshot_id]) == 0
    assert "passed" in capsys.readouterr().out
    assert fake_judge.state.calls == 99
    assert main(["judge", "activate", snapshot_id]) == 0
    assert "is active" in capsys.readouterr().out
    assert main(["judge", "list"]) == 0
    listing = capsys.readouterr().out
    assert snapshot_id in listing
    assert "active" in listing
    assert "passed" in listing
    assert main(["judge", "deactivate", snapshot_id]) == 0
    assert "is inactive" in capsys.readouterr().out


def test_a_failing_calibration_exits_non_zero(
    configured: Path, capsys: pytest.CaptureFixture[str], fake_judge: FakeJudge
) -> None:
    fake_judge.state.behaviour = "injectable"
    main(["judge", "calibration", "upload", str(configured / "set.jsonl")])
    main(["judge", "snapshot", "create", str(configured / "snapshot.json")])
    snapshot_id = re.findall(r"snapshot (\w{16}) created", capsys.readouterr().out)[0]
    assert main(["judge", "calibrate", snapshot_id]) == 1
    assert "injection_twin_failed" in capsys.readouterr().out


def test_bad_input_is_refused_clearly(configured: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["judge", "snapshot", "create", str(configured / "missing.json")]) == 1
    assert main(["judge", "calibrate", "not-an-id"]) == 1
    assert main(["judge", "activate", "0000000000000000"]) == 1
    assert "No judge snapshot" in capsys.readouterr().err
