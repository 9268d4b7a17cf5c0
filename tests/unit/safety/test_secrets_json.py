"""JSON spells characters as escapes; a key written that way is still a key.

``find_secrets_json_aware`` is shared by the typed fields (the settings field above all),
``.json``/``.ndjson`` evidence and JSON entries in a source ZIP; each is checked here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmax.services.safety import (
    SafetyLimits,
    check_text_field,
    find_secrets,
    find_secrets_json_aware,
    scan_file,
)
from tests.unit.safety.corpus import fake_secrets, write, zip_bytes

SECRETS = fake_secrets()
TOKEN_KINDS = sorted(set(SECRETS) - {"private_key", "google_service_account"})


def _escape_all(text: str) -> str:
    """Every character as a JSON ``\\uXXXX`` escape, the most a writer can hide."""
    return "".join(f"\\u{ord(char):04x}" for char in text)


@pytest.mark.parametrize("code", TOKEN_KINDS)
def test_a_fully_escaped_key_in_json_is_found(code: str) -> None:
    document = '{\n  "model": "x",\n  "value": "' + _escape_all(SECRETS[code]) + '"\n}'
    assert find_secrets(document) == []
    assert [(f.code, f.line) for f in find_secrets_json_aware(document)] == [(code, 3)]


def test_one_escaped_letter_and_escaped_slashes_are_enough() -> None:
    anthropic = SECRETS["anthropic_api_key"]
    assert find_secrets_json_aware('{"k": "\\u0073' + anthropic[1:] + '"}')
    secret = SECRETS["aws_secret_access_key"].split("= ")[1]
    slashed = secret[:10] + "/" + secret[10:30] + "/" + secret[32:]
    text = json.dumps({"aws_secret_access_key": slashed}).replace("/", "\\/")
    assert "aws_secret_access_key" in {f.code for f in find_secrets_json_aware(text)}


def test_json_inside_a_json_string_is_decoded_level_by_level() -> None:
    key = SECRETS["github_token"]
    inner = '{"token": "\\u0067' + key[1:] + '"}'
    twice = json.dumps({"config": json.dumps({"nested": inner})})
    assert "\\\\\\\\u0067" in twice  # the escape's backslash is itself escaped, twice over
    assert [f.code for f in find_secrets_json_aware(twice)] == ["github_token"]


def test_escaped_keyword_assignments_in_a_string_are_found() -> None:
    value = SECRETS["keyword_secret"]  # api_key = "..."
    text = json.dumps({"env": json.dumps({"api_key": value.split('"')[1]})})
    assert find_secrets(text) == []
    assert [f.code for f in find_secrets_json_aware(text)] == ["keyword_secret"]


def test_escaped_line_breaks_do_not_move_line_numbers() -> None:
    key = _escape_all(SECRETS["groq_api_key"])
    text = '{"a": "x\\ny\\r\\n\\u2028\\u000a"}\n{"b": "' + key + '"}\n'
    assert [(f.code, f.line) for f in find_secrets_json_aware(text)] == [("groq_api_key", 2)]


def test_a_key_found_both_ways_is_reported_once() -> None:
    key = SECRETS["huggingface_token"]
    text = json.dumps({"a": key, "b": "tab\\there"})
    assert [f.code for f in find_secrets_json_aware(text)] == ["huggingface_token"]


@pytest.mark.parametrize(
    "text",
    [
        json.dumps({"path": "C:\\temp\\new\\file.txt", "ok": True}),
        json.dumps({"greeting": "caf\u00e9 \u2603 \ud83d\ude00", "n": 12345678901234567890}),
        '{"lone": "\\ud800 then text", "bad": "\\x41\\q"}',
        json.dumps({"sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}),
        "plain prose with a backslash \\ and nothing else",
    ],
)
def test_ordinary_json_is_not_a_secret(text: str) -> None:
    assert find_secrets_json_aware(text) == []


def test_the_settings_field_refuses_an_escaped_key() -> None:
    settings = '{\n  "temperature": 0,\n  "headers": {"x-api-key": "\\u0073k-ant-' + (
        SECRETS["anthropic_api_key"][7:] + '"}\n}'
    )
    message = check_text_field("settings", settings)
    assert message is not None
    assert message.startswith("Line 3 of the settings looks like an Anthropic API key.")


@pytest.mark.parametrize("name", ["run.json", "run.ndjson", "run.jsonl"])
def test_json_evidence_with_an_escaped_key_is_blocked(tmp_path: Path, name: str) -> None:
    line = '{"step": 1, "auth": "\\u0073' + SECRETS["anthropic_api_key"][1:] + '"}'
    body = line if name.endswith(".json") else '{"step": 0}\n' + line + "\n"
    result = scan_file(write(tmp_path, name, body.encode()), name, SafetyLimits())
    assert (result.verdict, result.block_code) == ("blocked", "secret_detected")
    assert "looks like an Anthropic API key" in result.block_reason
    assert SECRETS["anthropic_api_key"][-10:] not in result.block_reason


@pytest.mark.parametrize("entry", ["config/settings.json", "notebook.ipynb", "data/unnamed"])
def test_json_entries_in_a_zip_are_decoded(tmp_path: Path, entry: str) -> None:
    escaped = '{"key": "\\u0073' + SECRETS["anthropic_api_key"][1:] + '"}'
    data = zip_bytes({"index.html": b"<!doctype html>", entry: escaped.encode()})
    result = scan_file(write(tmp_path, "src.zip", data), "src.zip", SafetyLimits())
    assert (result.verdict, result.block_code) == ("blocked", "secret_detected")
    assert entry in result.block_reason or entry.rsplit("/", 1)[-1] in result.block_reason
