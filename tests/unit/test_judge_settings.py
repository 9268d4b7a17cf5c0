"""Judge settings: off by default, refused in production unless https with a real key."""

from __future__ import annotations

import os
from typing import Any

import pytest
from pydantic import ValidationError

from benchmax.settings import Settings
from tests.unit.test_settings import _make, production  # noqa: F401 - fixture reused


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("BENCHMAX_", "OPENAI_")):
            monkeypatch.delenv(name)


def test_the_judge_is_off_by_default() -> None:
    settings = Settings(_env_file=None)
    assert not settings.judge_enabled
    assert settings.judge_max_retries == 0


def test_openai_variables_do_not_switch_the_judge_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.example/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-example")
    assert not Settings(_env_file=None).judge_enabled


def test_production_accepts_an_https_judge_with_a_real_key(production: dict[str, Any]) -> None:  # noqa: F811
    settings = _make(
        **production, judge_base_url="https://judge.example/v1", judge_api_key="sk-" + "q7" * 20
    )
    assert settings.judge_enabled


@pytest.mark.parametrize(
    ("overrides", "problem"),
    [
        ({"judge_base_url": "http://judge.example/v1", "judge_api_key": "sk-" + "q7" * 20},
         "JUDGE_BASE_URL must use https"),
        ({"judge_base_url": "https://judge.example/v1"}, "JUDGE_API_KEY is missing"),
        ({"judge_base_url": "https://judge.example/v1", "judge_api_key": "change-me"},
         "JUDGE_API_KEY is missing or a placeholder"),
    ],
)  # fmt: skip
def test_production_refuses_an_unsafe_judge(
    production: dict[str, Any],  # noqa: F811
    overrides: dict[str, Any],
    problem: str,
) -> None:
    with pytest.raises(ValidationError) as caught:
        _make(**{**production, **overrides})
    assert problem in str(caught.value)


def test_a_judge_timeout_must_fit_in_the_job_lease() -> None:
    with pytest.raises(ValidationError, match="JUDGE_TIMEOUT_SECONDS must be shorter"):
        Settings(_env_file=None, judge_base_url="http://127.0.0.1:1/v1",
                 judge_timeout_seconds=120, job_lease_seconds=120)  # fmt: skip
