"""``benchmax leaderboard keygen | rotate-key | snapshot | verify``: an operator's key path."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import Session

from benchmax.cli.main import main
from benchmax.db import make_engine
from benchmax.models import Role
from benchmax.services.leaderboard.signing import fingerprint
from benchmax.settings import get_settings
from tests.support.factories import make_review, make_test, make_user


@pytest.fixture
def configured(tmp_path: Path, sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    for name, value in {
        "ENV": "test",
        "DATA_DIR": str(tmp_path / "var"),
        "DATABASE_URL": sqlite_url,
        "STORAGE_BACKEND": "local",
        "STORAGE_LOCAL_ROOT": str(tmp_path / "objects"),
    }.items():
        monkeypatch.setenv(f"BENCHMAX_{name}", value)
    get_settings.cache_clear()
    yield sqlite_url
    get_settings.cache_clear()


def _keygen(capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    assert main(["leaderboard", "keygen"]) == 0
    out = capsys.readouterr().out
    seed = re.search(r"^BENCHMAX_LEADERBOARD_SIGNING_KEY=([0-9a-f]{64})$", out, re.M)
    public = re.search(r"^# public key ([0-9a-f]{64})$", out, re.M)
    assert seed
    assert public
    assert f"# fingerprint {fingerprint(public.group(1))}" in out
    return seed.group(1), public.group(1)


def _snapshot(capsys: pytest.CaptureFixture[str], signer_public: str) -> str:
    assert main(["leaderboard", "snapshot"]) == 0
    out = capsys.readouterr().out
    assert f"signed by key {fingerprint(signer_public)}" in out
    found = re.search(r"snapshot (\w{16}) published", out)
    assert found
    return found.group(1)


def _use(monkeypatch: pytest.MonkeyPatch, seed: str, rotation: str = "") -> None:
    monkeypatch.setenv("BENCHMAX_LEADERBOARD_SIGNING_KEY", seed)
    monkeypatch.setenv("BENCHMAX_LEADERBOARD_KEY_ROTATION", rotation)
    get_settings.cache_clear()


def test_keygen_snapshot_rotate_and_verify_across_the_rotation(
    configured: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(configured)
    with Session(engine) as session:
        test = make_test(session)
        make_review(session, test, make_user(session, role=Role.REVIEWER), score=80)
        session.commit()
    engine.dispose()
    old_seed, old_public = _keygen(capsys)
    new_seed, new_public = _keygen(capsys)
    _use(monkeypatch, old_seed)
    first = _snapshot(capsys, old_public)
    assert main(["leaderboard", "verify", first]) == 0
    assert "signature OK" in capsys.readouterr().out

    monkeypatch.setattr("sys.stdin", io.StringIO(old_seed + "\n"))
    assert main(["leaderboard", "rotate-key", new_public]) == 0
    statement = capsys.readouterr().out.strip().removeprefix("BENCHMAX_LEADERBOARD_KEY_ROTATION=")
    assert statement.startswith(f"{old_public}:{new_public}:")

    _use(monkeypatch, new_seed, statement)
    _snapshot(capsys, new_public)
    assert main(["leaderboard", "verify", first]) == 0  # the old key handed over
    capsys.readouterr()

    monkeypatch.setattr("sys.stdin", io.StringIO(new_seed + "\n"))
    assert main(["leaderboard", "rotate-key", "not-hex"]) == 1
    assert "64 hex digits" in capsys.readouterr().err
    _use(monkeypatch, old_seed)  # the old key no longer anchors the chain
    assert main(["leaderboard", "verify", first]) == 1
    assert "signature INVALID" in capsys.readouterr().err
