"""``benchmax leaderboard keygen | rotate-key | snapshot | verify``: an operator's key path."""

from __future__ import annotations

import io
import re
from collections.abc import Callable

import pytest
from pydantic import SecretStr
from sqlalchemy import Engine
from sqlmodel import Session

from benchmax.cli.main import main
from benchmax.context import AppContext
from benchmax.models import Role
from benchmax.services.leaderboard.signing import fingerprint
from benchmax.settings import Settings
from tests.support.factories import make_review, make_test, make_user

Cli = Callable[[list[str]], int]


def _cli(settings: Settings, engine: Engine, seed: str, rotation: str = "") -> Cli:
    """The command line of a process configured with this signing key (and hand-over)."""
    configured = settings.model_copy(
        update={"leaderboard_signing_key": SecretStr(seed), "leaderboard_key_rotation": rotation}
    )
    ctx = AppContext.from_settings(configured, engine=engine)
    return lambda argv: main(argv, ctx)


def _keygen(capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    assert main(["leaderboard", "keygen"]) == 0
    out = capsys.readouterr().out
    seed = re.search(r"^BENCHMAX_LEADERBOARD_SIGNING_KEY=([0-9a-f]{64})$", out, re.M)
    public = re.search(r"^# public key ([0-9a-f]{64})$", out, re.M)
    assert seed
    assert public
    assert f"# fingerprint {fingerprint(public.group(1))}" in out
    return seed.group(1), public.group(1)


def _snapshot(cli: Cli, capsys: pytest.CaptureFixture[str], signer_public: str) -> str:
    assert cli(["leaderboard", "snapshot"]) == 0
    out = capsys.readouterr().out
    assert f"signed by key {fingerprint(signer_public)}" in out
    found = re.search(r"snapshot (\w{16}) published", out)
    assert found
    return found.group(1)


def test_keygen_snapshot_rotate_and_verify_across_the_rotation(
    settings: Settings,
    engine: Engine,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with Session(engine) as session:
        test = make_test(session)
        make_review(session, test, make_user(session, role=Role.REVIEWER), score=80)
        session.commit()
    old_seed, old_public = _keygen(capsys)
    new_seed, new_public = _keygen(capsys)
    cli = _cli(settings, engine, old_seed)
    first = _snapshot(cli, capsys, old_public)
    assert cli(["leaderboard", "verify", first]) == 0
    assert "signature OK" in capsys.readouterr().out

    monkeypatch.setattr("sys.stdin", io.StringIO(old_seed + "\n"))
    assert main(["leaderboard", "rotate-key", new_public]) == 0
    statement = capsys.readouterr().out.strip().removeprefix("BENCHMAX_LEADERBOARD_KEY_ROTATION=")
    assert statement.startswith(f"{old_public}:{new_public}:")

    cli = _cli(settings, engine, new_seed, statement)
    _snapshot(cli, capsys, new_public)
    assert cli(["leaderboard", "verify", first]) == 0  # the old key handed over
    capsys.readouterr()

    monkeypatch.setattr("sys.stdin", io.StringIO(new_seed + "\n"))
    assert main(["leaderboard", "rotate-key", "not-hex"]) == 1
    assert "64 hex digits" in capsys.readouterr().err
    cli = _cli(settings, engine, old_seed)  # the old key no longer anchors the chain
    assert cli(["leaderboard", "verify", first]) == 1
    assert "signature INVALID" in capsys.readouterr().err
