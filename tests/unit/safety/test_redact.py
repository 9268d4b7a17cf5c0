"""The derived-text gate's pure half: every credential the detector knows, however hidden,
anywhere in any structure, leaves only a marker; clean text passes unchanged."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from benchmax.services.safety import find_secrets_json_aware
from benchmax.services.safety.redact import marker, redact
from tests.unit.safety.corpus import canary_key, fake_secrets, token

SECRETS = fake_secrets()


def _bare(value: str) -> str:
    """The credential itself inside a fixture value (keyword rules carry their keyword)."""
    return value.split("=", 1)[-1].strip().strip('"') if "=" in value else value


@pytest.mark.parametrize("code", sorted(SECRETS))
def test_every_kind_the_detector_knows_is_removed_with_a_marker(code: str) -> None:
    value = SECRETS[code]
    text = f"Uncaught Error: config {value} was rejected"
    cleaned = redact(text)
    assert cleaned.count >= 1
    assert "[removed: looked like" in cleaned.value
    assert not find_secrets_json_aware(cleaned.value)
    if code not in ("google_service_account", "private_key"):
        assert _bare(value) not in cleaned.value
        # Only the credential went: the words around it stay readable.
        assert cleaned.value.startswith("Uncaught Error: config ")
        assert cleaned.value.endswith(" was rejected")


def test_the_marker_names_the_kind_and_nothing_of_the_key() -> None:
    key = canary_key()
    cleaned = redact(f"token {key}.")
    assert cleaned.value == "token [removed: looked like an Anthropic API key]."
    assert cleaned.kinds == ("Anthropic API key",)
    assert marker("GitHub token") == "[removed: looked like a GitHub token]"


@pytest.mark.parametrize(
    "disguise",
    [
        lambda key: key[:10] + "\u200b" + key[10:],  # zero-width space inside
        lambda key: "".join(chr(ord(c) + 0xFEE0) if c.isalnum() else c for c in key),  # fullwidth
        lambda key: json.dumps(key).replace("s", "\\u0073", 1),  # a JSON escape
        lambda key: key[:20] + "\u00ad" + key[20:],  # soft hyphen
    ],
)
def test_a_hidden_key_is_removed_too(disguise: object) -> None:
    key = canary_key()
    hidden = disguise(key)  # type: ignore[operator]
    cleaned = redact(f"console: {hidden} end")
    assert cleaned.count == 1
    assert not find_secrets_json_aware(cleaned.value)
    assert key[13:45] not in cleaned.value


def test_a_structure_is_walked_whole_keys_values_tuples_and_dataclasses() -> None:
    @dataclass(frozen=True)
    class Answer:
        content: str
        labels: tuple[str, ...] = ()
        extra: dict[str, object] = field(default_factory=dict)

    key = canary_key()
    value = {
        "console_errors": [f"boom {key}"],
        key: {"nested": [[[{"deep": f"x {key} y"}]]]},
        "answers": [Answer(content=key, labels=("ok", key), extra={"n": 3, "k": key})],
        "number": 7,
        "flag": True,
        "none": None,
    }
    cleaned = redact(value)
    walked: Any = cleaned.value
    assert cleaned.count == 6
    assert key not in repr(cleaned.value)
    assert key[13:45] not in repr(cleaned.value)
    assert walked["number"] == 7
    assert walked["flag"] is True
    assert walked["answers"][0].extra["n"] == 3


def test_clean_values_pass_unchanged_and_uncounted() -> None:
    value = {
        "summary": "The page loaded in 0.3 s with no network.",
        "help": "Images must have alternative text",
        "hash": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "id": "q7Kp2",
        "url": "http://127.0.0.1:41000/app.js?v=3",
        "unicode": "naïve café, 東京",
    }
    cleaned = redact(value)
    assert (cleaned.value, cleaned.count) == (value, 0)


def test_cutting_happens_after_redaction_so_no_head_of_a_key_survives() -> None:
    key = canary_key()
    for pad in range(0, 60, 7):
        text = "." * pad + key
        cleaned = redact(text, clip=40)
        assert len(cleaned.value) <= 40
        assert key[:17] not in cleaned.value  # "sk-ant-api03-" and more
        assert "sk-ant" not in cleaned.value


def test_many_keys_in_one_string_are_each_removed() -> None:
    keys = [canary_key() for _ in range(5)]
    cleaned = redact(" | ".join(keys))
    assert cleaned.count == 5
    assert cleaned.value.count("[removed:") == 5


def test_a_pem_block_goes_to_its_end_line() -> None:
    pem = SECRETS["private_key"]
    cleaned = redact(f"before\n{pem}\nafter")
    assert cleaned.value == "before\n[removed: looked like a private key (PEM)]\nafter"


def test_values_it_cannot_vouch_for_are_refused() -> None:
    with pytest.raises(TypeError):
        redact({"raw": b"bytes"})


def test_depth_is_bounded() -> None:
    value: object = token(40, 1)
    for _ in range(200):
        value = [value]
    cleaned = redact(value)
    assert cleaned.count == 1


@pytest.mark.parametrize("glue", ["fp_abc_", "id_", "x_y_"])
def test_a_key_glued_to_a_label_by_an_underscore_is_removed(glue: str) -> None:
    key = canary_key()
    cleaned = redact(f"{glue}{key}")
    assert cleaned.value == f"{glue}[removed: looked like an Anthropic API key]"
