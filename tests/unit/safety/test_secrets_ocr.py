"""The detector on OCR text: what OCR does to a key around its fixed prefix is undone, and
ordinary text read by OCR stays ordinary."""

from __future__ import annotations

import pytest

from benchmax.services.safety.secrets_ocr import find_secrets_in_ocr
from tests.unit.safety.corpus import fake_secrets, token

SECRETS = fake_secrets()


def _codes(text: str) -> set[str]:
    return {finding.code for finding in find_secrets_in_ocr(text)}


def _space_every(text: str, step: int) -> str:
    return " ".join(text[i : i + step] for i in range(0, len(text), step))


@pytest.mark.parametrize("code", sorted(SECRETS))
def test_every_kind_read_cleanly_is_found(code: str) -> None:
    assert code in _codes(SECRETS[code]) or (
        code == "google_service_account" and "private_key" not in SECRETS[code]
    )


@pytest.mark.parametrize(
    ("damaged", "code"),
    [
        # O/0, l/1/I and S/5 inside the fixed prefix, and spaces inserted into it.
        ("5k-ant-apiO3-" + token(93, 1) + "AA", "anthropic_api_key"),
        ("sk- ant-api03 -" + token(93, 1), "anthropic_api_key"),
        ("Sk-proj-" + token(64, 2), "openai_api_key"),
        ("sk-or-vl-" + token(64, 3, "0123456789abcdef"), "openrouter_api_key"),
        ("A1za" + token(35, 4), "google_api_key"),
        ("AKlA" + token(16, 5, "ABCDEFGHJKMNPQRSTUVWXYZ234567"), "aws_access_key_id"),
        ("gh p_" + token(36, 7), "github_token"),
        ("hf—" + token(34, 8), "huggingface_token"),
        ("g5k_" + token(52, 9), "groq_api_key"),
        ("xai -" + token(80, 10), "xai_api_key"),
    ],
)
def test_damage_around_the_prefix_is_undone(damaged: str, code: str) -> None:
    assert code in _codes(f"export KEY_NAME={damaged}")


@pytest.mark.parametrize("code", ["anthropic_api_key", "openai_api_key", "xai_api_key"])
def test_spaces_inserted_inside_a_key_are_undone(code: str) -> None:
    key = SECRETS[code]
    assert code in _codes("value: " + key[:20] + _space_every(key[20:], 17))


def test_a_hex_key_split_by_spaces_is_rejoined() -> None:
    body = token(64, 3, "0123456789abcdef")
    assert "openrouter_api_key" in _codes('key = "sk-or-v1-' + _space_every(body, 26) + '"')


def test_an_aws_key_id_with_one_character_too_many_is_found() -> None:
    key = SECRETS["aws_access_key_id"]
    assert "aws_access_key_id" in _codes(f"aws_access_key_id = {key}S")


def test_a_keyword_assignment_misread_and_spaced_is_found() -> None:
    secret = token(40, 6)
    text = f"aws secret access key a {secret[:17]} {secret[17:]}"
    assert _codes(text) & {"aws_secret_access_key", "keyword_secret"}


def test_a_pem_key_with_its_material_spaced_out_is_found() -> None:
    material = token(64, 13, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    text = "—----BEGIN PRIVATE KEY---- -\n\n" + _space_every(material, 9) + "\n-----END"
    assert "private_key" in _codes(text)


def test_a_service_account_read_with_curly_quotes_is_found() -> None:
    opening, closing, apostrophe = "\u201c", "\u201d", "\u2019"
    text = (
        f"{{\n{opening}type{closing}: {opening}service account{apostrophe},\n"
        f"{opening}private_key{closing}: {opening}x{closing}\n}}"
    )
    assert "google_service_account" in _codes(text)


@pytest.mark.parametrize(
    "text",
    [
        "5k- this is just some ordinary text that follows and goes on and on here",
        "sk- Anthropic keys start like this; never paste yours into a chat",
        "commit 66c90279b99192f4b9dd35742e24f04c6fb4d63a",
        "sha256:3e5fee73c1b430321f9ed86ab33ef371f7a2b18f793729f7dfd50c24fb0eff54",
        "request_id=7b602a7a-0686-0e08-4575-c6b455343e38 status=200",
        "export OPENAI_API_KEY=your-key-here",
        'curl -H "Authorization: Bearer $ANTHROPIC_API_KEY" https://example.com/v1',
        "Never paste your API key into a chat. Store it in an environment variable.",
        "token = getAccessTokenFromEnvironment(config, retries=3)",
        "-----BEGIN PRIVATE KEY----- is how a PEM file starts; the key follows it.",
        "ASIA PACIFIC REGION 2024 results are in",
        "The key: Config 42 Times Retry Handler Model Output Layout Render",
        "API key: Paste it into the Settings page 2 Times and Restart the Server now",
    ],
)
def test_ordinary_text_read_by_ocr_is_not_a_key(text: str) -> None:
    assert _codes(text) == set()
