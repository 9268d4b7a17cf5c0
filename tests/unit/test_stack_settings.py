"""BENCHMAX_STACK_LOCAL waives exactly https and Clerk, and only while both origins are loopback."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from benchmax.adapters.auth.local_issuer import LocalIssuer, LocalIssuerRefusedError
from benchmax.settings import Settings
from benchmax.stack.topology import StackConfig


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("BENCHMAX_"):
            monkeypatch.delenv(name)


def _stack(tmp_path: Path, **overrides: Any) -> Settings:
    """The settings every stack process reads, from the stack's own environment."""
    env = StackConfig(data_dir=tmp_path).environment()
    values = {
        k.removeprefix("BENCHMAX_").lower(): v for k, v in env.items() if k.startswith("BENCHMAX_")
    }
    return Settings(_env_file=None, **{**values, **overrides})


def test_the_stack_environment_passes_the_production_checks(tmp_path: Path) -> None:
    settings = _stack(tmp_path)
    assert settings.is_production
    assert settings.stack_relaxes()
    assert settings.enforced_production_problems() == []
    waived = settings.production_problems()
    assert len(waived) == 1
    assert "BENCHMAX_AUTH_BACKEND=local" in waived[0]
    assert LocalIssuer(settings).issuer == "http://localhost:4700/local-issuer"


def test_without_the_flag_the_same_environment_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="https in production") as refused:
        _stack(tmp_path, stack_local=False)
    assert "BENCHMAX_AUTH_BACKEND=local" in str(refused.value)


@pytest.mark.parametrize(
    ("field", "origin"),
    [
        ("app_origin", "http://benchmax.org"),
        ("usercontent_origin", "http://benchmax-usercontent.net"),
        ("usercontent_origin", "http://10.0.0.5:4701"),
        ("usercontent_origin", "http://localhost.evil.example"),
    ],
)
def test_the_flag_waives_nothing_once_an_origin_leaves_loopback(
    tmp_path: Path, field: str, origin: str
) -> None:
    with pytest.raises(ValidationError, match="unsafe production configuration"):
        _stack(tmp_path, **{field: origin})


def test_the_flag_never_waives_the_other_checks(tmp_path: Path) -> None:
    with pytest.raises(ValidationError) as refused:
        _stack(tmp_path, database_url="", storage_backend="local", queue_backend="memory")
    message = str(refused.value)
    for needed in ("PostgreSQL", "STORAGE_BACKEND must be s3", "QUEUE_BACKEND must be redis"):
        assert needed in message


def test_the_local_issuer_stays_refused_in_production_without_the_flag(tmp_path: Path) -> None:
    settings = _stack(tmp_path).model_copy(update={"stack_local": False})
    with pytest.raises(LocalIssuerRefusedError):
        LocalIssuer(settings)
