"""``benchmax judge ...``: the operator's whole path from a file to an active judge."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import Engine

from benchmax.cli.main import main
from benchmax.context import AppContext
from benchmax.settings import Settings
from tests.support.fake_judge import FakeJudge
from tests.support.judge_helpers import calibration_set, judge_settings, snapshot_file


@dataclass(frozen=True)
class Cli:
    """``benchmax`` run on this test's context: its database, storage and judge."""

    directory: Path
    ctx: AppContext

    def __call__(self, argv: list[str]) -> int:
        return main(argv, self.ctx)


@pytest.fixture
def cli(tmp_path: Path, settings: Settings, engine: Engine, fake_judge: FakeJudge) -> Cli:
    raw = calibration_set()
    (tmp_path / "set.jsonl").write_bytes(raw)
    (tmp_path / "snapshot.json").write_bytes(snapshot_file())
    judged = judge_settings(settings, fake_judge, hashlib.sha256(raw).hexdigest())
    return Cli(tmp_path, AppContext.from_settings(judged, engine=engine))


def test_create_calibrate_activate_list_deactivate(
    cli: Cli, capsys: pytest.CaptureFixture[str], fake_judge: FakeJudge
) -> None:
    assert cli(["judge", "calibration", "upload", str(cli.directory / "set.jsonl")]) == 0
    assert hashlib.sha256(calibration_set()).hexdigest() in capsys.readouterr().out
    assert cli(["judge", "snapshot", "create", str(cli.directory / "snapshot.json")]) == 0
    match = re.search(r"snapshot (\w{16}) created", capsys.readouterr().out)
    assert match
    snapshot_id = match.group(1)
    assert cli(["judge", "activate", snapshot_id]) == 1
    assert "latest calibration passed" in capsys.readouterr().err
    assert cli(["judge", "calibrate", snapshot_id]) == 0
    assert "passed" in capsys.readouterr().out
    assert fake_judge.state.calls == 99
    assert cli(["judge", "activate", snapshot_id]) == 0
    assert "is active" in capsys.readouterr().out
    assert cli(["judge", "list"]) == 0
    listing = capsys.readouterr().out
    assert snapshot_id in listing
    assert "active" in listing
    assert "passed" in listing
    assert cli(["judge", "deactivate", snapshot_id]) == 0
    assert "is inactive" in capsys.readouterr().out


def test_a_failing_calibration_exits_non_zero(
    cli: Cli, capsys: pytest.CaptureFixture[str], fake_judge: FakeJudge
) -> None:
    fake_judge.state.behaviour = "injectable"
    cli(["judge", "calibration", "upload", str(cli.directory / "set.jsonl")])
    cli(["judge", "snapshot", "create", str(cli.directory / "snapshot.json")])
    snapshot_id = re.findall(r"snapshot (\w{16}) created", capsys.readouterr().out)[0]
    assert cli(["judge", "calibrate", snapshot_id]) == 1
    assert "injection_twin_failed" in capsys.readouterr().out


def test_bad_input_is_refused_clearly(cli: Cli, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["judge", "snapshot", "create", str(cli.directory / "missing.json")]) == 1
    assert cli(["judge", "calibrate", "not-an-id"]) == 1
    assert cli(["judge", "activate", "0000000000000000"]) == 1
    assert "No judge snapshot" in capsys.readouterr().err
