"""The judge adapter: the real ``openai`` client against the fake judge over HTTP."""

from __future__ import annotations

import json

import pytest

from benchmax.adapters.judge import JudgeCall, JudgeClientError, OpenAICompatibleJudge
from benchmax.services.judge.prompt import (
    SCHEMA_NAME,
    VERDICT_SCHEMA,
    EvidenceSection,
    build_messages,
)
from benchmax.services.judge.verdict import parse_verdict
from tests.support.fake_judge import FakeJudge
from tests.support.judge_helpers import JUDGE_KEY, TEMPLATE, steps

NONCE = "a1b2c3d4e5f6a7b8c9d0e1f2"


def _client(judge: FakeJudge, **overrides: object) -> OpenAICompatibleJudge:
    options: dict[str, object] = {
        "base_url": judge.base_url,
        "api_key": JUDGE_KEY,
        "timeout_seconds": 5.0,
        "connect_timeout_seconds": 2.0,
        "max_retries": 0,
    }
    options.update(overrides)
    return OpenAICompatibleJudge(**options)  # type: ignore[arg-type]


def _call(model: str = "fake-judge-2026-11-20", output: str = steps(7, 3)) -> JudgeCall:
    sections = [EvidenceSection("Prompt", "Do the task."), EvidenceSection("Output", output)]
    return JudgeCall(
        model=model,
        messages=build_messages(TEMPLATE, "rubric-1", NONCE, sections, []),
        schema_name=SCHEMA_NAME,
        schema=VERDICT_SCHEMA,
        seed=7,
        temperature=0.0,
        max_output_tokens=300,
    )


def test_an_honest_reply_is_one_answer_with_what_the_endpoint_reported(
    fake_judge: FakeJudge,
) -> None:
    reply = _client(fake_judge).complete(_call())
    assert len(reply.answers) == 1
    answer = reply.answers[0]
    assert answer.reported_model == "fake-judge-2026-11-20-served"
    assert answer.system_fingerprint == "fp_fake_judge"
    assert answer.prompt_tokens
    assert answer.completion_tokens == 40
    assert reply.sent == 1
    assert parse_verdict(answer.content, NONCE).score == 70
    body = fake_judge.state.requests[0].body
    assert body["temperature"] == 0
    assert body["seed"] == 7
    assert body["max_tokens"] == 300
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": SCHEMA_NAME, "strict": True, "schema": VERDICT_SCHEMA},
    }


def test_openai_environment_variables_are_ignored(
    fake_judge: FakeJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = FakeJudge()
    try:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
        monkeypatch.setenv("OPENAI_BASE_URL", other.base_url)
        monkeypatch.setenv("OPENAI_ORG_ID", "org-environment")
        monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-environment")
        monkeypatch.setenv("OPENAI_CUSTOM_HEADERS", "Authorization: Bearer sk-custom\nX-Leak: 1")
        monkeypatch.setenv("OPENAI_LOG", "debug")
        _client(fake_judge).complete(_call())
        assert other.state.calls == 0
        headers = {k.lower(): v for k, v in fake_judge.state.requests[0].headers.items()}
        assert headers["authorization"] == f"Bearer {JUDGE_KEY}"
        assert "openai-organization" not in headers
        assert "openai-project" not in headers
        assert "x-leak" not in headers
        assert "sk-from-the-environment" not in json.dumps(headers)
    finally:
        other.close()


def test_a_server_error_is_a_coded_failure_and_not_retried_by_default(
    fake_judge: FakeJudge,
) -> None:
    fake_judge.state.behaviour = "error"
    with pytest.raises(JudgeClientError) as caught:
        _client(fake_judge).complete(_call())
    assert caught.value.code == "judge_http_503"
    assert fake_judge.state.calls == 1
    assert caught.value.sent == 1  # it reached the endpoint: it may have been billed


def test_configured_retries_are_the_only_retries(fake_judge: FakeJudge) -> None:
    fake_judge.state.behaviour = "error"
    with pytest.raises(JudgeClientError) as caught:
        _client(fake_judge, max_retries=1).complete(_call())
    assert fake_judge.state.calls == 2
    assert caught.value.sent == 2


def test_a_body_that_is_not_json_is_a_coded_failure(fake_judge: FakeJudge) -> None:
    fake_judge.state.behaviour = "garbage"
    with pytest.raises(JudgeClientError) as caught:
        _client(fake_judge).complete(_call())
    assert caught.value.code in ("judge_reply_not_json", "judge_unreachable")


def test_a_slow_judge_times_out_at_our_setting(fake_judge: FakeJudge) -> None:
    fake_judge.state.delay = 2.0
    with pytest.raises(JudgeClientError) as caught:
        _client(fake_judge, timeout_seconds=0.5).complete(_call())
    assert caught.value.code == "judge_timeout"
    assert caught.value.sent == 1  # the request went out; only the answer was late


def test_an_unreachable_judge_is_a_coded_failure() -> None:
    client = OpenAICompatibleJudge(
        base_url="http://127.0.0.1:9/v1", api_key=JUDGE_KEY, timeout_seconds=1,
        connect_timeout_seconds=0.5, max_retries=0,
    )  # fmt: skip
    with pytest.raises(JudgeClientError) as caught:
        client.complete(_call())
    assert caught.value.code == "judge_unreachable"
    assert caught.value.sent == 0  # no connection was ever made


def test_a_panel_reply_gives_one_answer_per_seat(fake_judge: FakeJudge) -> None:
    fake_judge.state.panel = ["honest", "length", "error"]
    reply = _client(fake_judge).complete(_call(model="bench/reviewers"))
    assert [a.seat for a in reply.answers] == [
        "reviewer-0-honest", "reviewer-1-length", "reviewer-2-error",
    ]  # fmt: skip
    assert parse_verdict(reply.answers[0].content, NONCE).score == 70
    assert reply.answers[2].content is None
    assert reply.answers[2].error_code == "panel_seat_error"


@pytest.mark.parametrize(
    ("behaviour", "code"),
    [("malformed", "reply_not_json"), ("wrong_nonce", "reply_nonce_mismatch")],
)
def test_bad_verdicts_fail_validation(fake_judge: FakeJudge, behaviour: str, code: str) -> None:
    fake_judge.state.behaviour = behaviour
    reply = _client(fake_judge).complete(_call())
    with pytest.raises(ValueError, match=code):
        parse_verdict(reply.answers[0].content, NONCE)
