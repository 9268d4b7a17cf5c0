"""Backoff arithmetic, error codes and the handler registry: no database needed."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine

from benchmax.adapters.storage.local import LocalStorage
from benchmax.services.jobs import (
    JobContext,
    JobError,
    backoff_seconds,
    error_code,
    get_handler,
    job_handler,
)
from benchmax.settings import Settings


def test_backoff_doubles_from_base_within_jitter_band() -> None:
    delays = [backoff_seconds(n, base=2, cap=1000, jitter=0.0) for n in range(1, 5)]
    assert delays == [1.0, 2.0, 4.0, 8.0]
    assert backoff_seconds(3, base=2, cap=1000, jitter=0.999) == pytest.approx(8.0, rel=1e-3)


def test_backoff_never_exceeds_cap() -> None:
    assert backoff_seconds(40, base=2, cap=600, jitter=0.999) <= 600
    assert backoff_seconds(40, base=2, cap=600, jitter=0.0) == 300


def test_backoff_random_jitter_stays_in_band() -> None:
    for _ in range(200):
        assert 4.0 <= backoff_seconds(3, base=2, cap=1000) < 8.0


def test_error_code_is_class_name_never_message() -> None:
    assert error_code(ValueError("prompt text sk-secret")) == "ValueError"
    assert error_code(JobError("scanner_timeout")) == "scanner_timeout"
    assert len(JobError("x" * 200).code) == 64


def _first(ctx: JobContext, subject_id: str) -> None:
    del ctx, subject_id


def _second(ctx: JobContext, subject_id: str) -> None:
    del ctx, subject_id


def test_one_handler_per_kind() -> None:
    job_handler("test.registry.kind")(_first)
    assert get_handler("test.registry.kind") is _first
    job_handler("test.registry.kind")(_first)  # re-registering the same function is fine
    with pytest.raises(ValueError, match="already registered"):
        job_handler("test.registry.kind")(_second)
    assert get_handler("test.registry.unknown") is None


def test_context_builds_the_collaborators_its_settings_choose(
    tmp_path: Path, engine: Engine
) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path, preview_sandbox="off")
    ctx = JobContext.from_settings(settings, engine=engine)
    ctx.storage.put("private/probe", [b"x"])
    assert (tmp_path / "objects" / "private" / "probe").read_bytes() == b"x"
    assert (ctx.judge, ctx.sandbox, ctx.queue.attached) == (None, None, None)  # all off
    other = LocalStorage(tmp_path / "elsewhere")
    assert JobContext.from_settings(settings, engine=engine, storage=other).storage is other
