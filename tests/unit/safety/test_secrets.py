import json

import pytest

from benchmax.services.safety import SecretFinding, check_text_field, find_secrets
from tests.unit.safety.corpus import fake_secrets, token

SECRETS = fake_secrets()
ZERO_WIDTH = "\u200b"


def _fullwidth(text: str) -> str:
    """ASCII letters, digits and punctuation as their fullwidth compatibility forms."""
    return "".join(chr(ord(char) + 0xFEE0) if "!" <= char <= "~" else char for char in text)


@pytest.mark.parametrize("code", sorted(SECRETS))
def test_each_kind_is_found_on_its_line(code: str) -> None:
    text = f"first line\nsecond line\nvalue: {SECRETS[code]}\n"
    findings = find_secrets(text)
    assert [finding.code for finding in findings][:1] == [code]
    assert findings[0].line == 3


@pytest.mark.parametrize("code", sorted(SECRETS))
def test_split_by_zero_width_characters(code: str) -> None:
    secret = SECRETS[code]
    hidden = ZERO_WIDTH.join(secret[i : i + 3] for i in range(0, len(secret), 3))
    assert code in {finding.code for finding in find_secrets(f"see {hidden}")}


# The rules that find a key by its own prefix, not by a name assigned to it.
TOKEN_RULES = [code for code, text in sorted(SECRETS.items()) if not {" ", "="} & set(text)]


@pytest.mark.parametrize("code", TOKEN_RULES)
@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("OPENAI_API_KEY_", ""),  # glued to the variable it came from
        ("key-", "-old"),
        ("", "_backup"),
        ('"line one\\n', '\\n"'),  # a JSON-escaped line break in a log, on both sides
        ("?key=%3D", "%20&x=1"),  # percent-escapes in a URL
        ("\\t", "."),
    ],
)
def test_a_key_glued_to_its_neighbours_is_still_found(code: str, before: str, after: str) -> None:
    text = f"see {before}{SECRETS[code]}{after} here"
    assert code in {finding.code for finding in find_secrets(text)}, text


@pytest.mark.parametrize("code", ["anthropic_api_key", "openai_api_key", "google_api_key"])
def test_fullwidth_characters(code: str) -> None:
    assert code in {finding.code for finding in find_secrets(_fullwidth(SECRETS[code]))}


def test_bidi_and_soft_hyphen_tricks() -> None:
    secret = SECRETS["github_token"]
    text = secret[:4] + "\u202d\u00ad" + secret[4:] + "\u2066"
    assert [finding.code for finding in find_secrets(text)] == ["github_token"]


def test_column_is_reported() -> None:
    (finding,) = find_secrets("ab\n    " + SECRETS["groq_api_key"])
    assert (finding.line, finding.column) == (2, 5)


def test_service_account_json_also_reports_its_private_key_line() -> None:
    document = json.loads(SECRETS["google_service_account"])
    document["private_key"] = "-----BEGIN PRIVATE KEY-----\\n" + token(64, 20) + "\\n"
    text = json.dumps(document, indent=2).replace("\\\\n", "\\n")
    assert {finding.code for finding in find_secrets(text)} == {
        "google_service_account",
        "private_key",
    }


@pytest.mark.parametrize(
    "text",
    [
        "The quick brown fox jumps over the lazy dog while the model reasons step by step.",
        "request id 123e4567-e89b-12d3-a456-426614174000 finished",
        "token = 123e4567-e89b-12d3-a456-426614174000",
        "sha256: " + "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        'secret_sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"',
        "token = get_access_token_from_the_environment_variable()",
        "api_key = os.environ['OPENAI_API_KEY']",
        'api_key = "YOUR_API_KEY_GOES_HERE_PLEASE_REPLACE"',
        "sk-" + "x" * 48,
        "sk-" + "proj-" + "X" * 40,
        "tokens_used: 1234567890123456789012345678901234",
        "-----BEGIN " + "PRIVATE KEY----- is how PEM files start",
        '{"type": "service_account"} without any key material',
        "task-" + token(40, 30),
        "password: correct horse battery staple",
    ],
)
def test_ordinary_text_is_not_a_secret(text: str) -> None:
    assert find_secrets(text) == []


def test_findings_never_hold_the_secret() -> None:
    secret = SECRETS["anthropic_api_key"]
    findings = find_secrets(secret)
    assert findings
    assert all(secret[-8:] not in repr(finding.as_dict()) for finding in findings)


def test_describe() -> None:
    finding = SecretFinding("anthropic_api_key", "Anthropic API key", 3, 1)
    assert finding.describe("the prompt") == "line 3 of the prompt looks like an Anthropic API key"
    hub = SecretFinding("huggingface_token", "Hugging Face token", 1, 1)
    assert hub.describe("notes.txt") == "line 1 of notes.txt looks like a Hugging Face token"


def test_check_text_field_names_kind_and_line() -> None:
    message = check_text_field("prompt", "Hello\nuse this\n" + SECRETS["anthropic_api_key"])
    assert message is not None
    assert message.startswith("Line 3 of the prompt looks like an Anthropic API key.")
    assert "never needs your model keys" in message
    assert SECRETS["anthropic_api_key"][-6:] not in message


def test_check_text_field_passes_clean_text() -> None:
    assert check_text_field("notes", "Ran it three times; this was the best attempt.") is None
