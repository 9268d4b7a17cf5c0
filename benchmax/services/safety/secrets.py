"""Finding credentials in text: our own pattern table, because off-the-shelf scanners lag
behind the key formats model vendors ship.

Speed matters because every text file and every ZIP entry passes through here, and Python's
regex engine is slow at "any of these forty literals". Every token-shaped credential has at
least 20 consecutive characters from [A-Za-z0-9_-+/], which ordinary prose and most code do
not; those runs are found at C speed (one ``bytes.translate`` and ``find``), and only there
are the rules tried. Multi-line credentials (PEM, service-account JSON) are matched over the
whole text, but only when their fixed marker is present at all. Findings carry a kind and a
position, never the matched text.

JSON can spell any character as an escape (``"\\u0073k-ant-…"``, ``"…\\/…"``), which every
JSON reader turns back into the key. ``find_secrets_json_aware`` is the one entry point for
text that may be JSON (typed fields, JSON evidence, JSON inside a ZIP): it also matches the
text with its string escapes decoded, nested JSON-in-a-string included.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from benchmax.services.safety.hints import (
    MIN_RUN,
    PEM_MARKER,
    RUN_CHARACTERS,
    SERVICE_ACCOUNT_MARKERS,
    text_hints,
)
from benchmax.services.safety.normalise import LineCounter, normalise_for_matching

_MAX_FINDINGS = 100
# A key starts where a token does: after anything but a letter or digit (so after ``_`` and
# ``-`` too: ``OPENAI_KEY_sk-proj-…`` glues a key to its name), or right after an escape that
# stands for a separator, ``\n`` in a log's JSON or ``%20``/``%3D`` in a URL. Only letters and
# digits before the prefix make it part of another word ("risk-…", "task-…").
_AFTER_ESCAPE = r"(?<=\\[nrt])|(?<=%[0-9A-Fa-f]{2})"
_START_OF_WORD = rf"(?:(?<![A-Za-z0-9])|{_AFTER_ESCAPE})"
_ASSIGN = r"""["'`]?\s{0,3}(?::=|=>|=|:)\s{0,3}["'`]?"""


@dataclass(frozen=True, slots=True)
class SecretFinding:
    code: str
    kind: str
    line: int
    column: int

    def describe(self, where: str) -> str:
        """E.g. "line 3 of the prompt looks like an Anthropic API key"."""
        article = "an" if self.kind[0].lower() in "aeiox" else "a"
        return f"line {self.line} of {where} looks like {article} {self.kind}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "type": "secret",
            "code": self.code,
            "kind": self.kind,
            "line": self.line,
            "column": self.column,
        }


@dataclass(frozen=True, slots=True)
class _Detects:
    """What every rule names in its findings: the code, and the kind of secret in words."""

    code: str
    kind: str


@dataclass(frozen=True, slots=True)
class _Rule(_Detects):
    # Where the pattern is tried: at each occurrence of a prefix inside a long run, or (for
    # keyword rules) once per run whose preceding text holds one of the keywords.
    prefixes: tuple[str, ...]
    pattern: re.Pattern[str]
    keywords: tuple[str, ...] = ()
    # Placeholders such as sk-xxxxxxxx... have almost no entropy; real keys have plenty.
    min_entropy: float = 3.0


@dataclass(frozen=True, slots=True)
class _DocumentRule(_Detects):
    # Cheap ``in`` checks that must all pass before the pattern scans the whole text.
    markers: tuple[str, ...]
    pattern: re.Pattern[str]


_RULES: tuple[_Rule, ...] = (
    _Rule(
        "anthropic_api_key",
        "Anthropic API key",
        ("sk-",),
        re.compile(_START_OF_WORD + r"sk-ant-[a-z]{3,8}\d{0,3}-(?P<secret>[A-Za-z0-9_\-]{32,})"),
    ),
    _Rule(
        "openrouter_api_key",
        "OpenRouter API key",
        ("sk-",),
        re.compile(_START_OF_WORD + r"sk-or-v\d-(?P<secret>[0-9a-f]{32,})"),
    ),
    _Rule(
        "openai_api_key",
        "OpenAI API key",
        ("sk-",),
        re.compile(
            _START_OF_WORD
            + r"sk-(?!ant-|or-)(?:(?:proj|svcacct|admin|None)-)?(?P<secret>[A-Za-z0-9_\-]{32,})"
        ),
    ),
    _Rule(
        "google_api_key",
        "Google API key",
        ("AIza",),
        re.compile(_START_OF_WORD + r"AIza(?P<secret>[0-9A-Za-z_\-]{35})"),
    ),
    _Rule(
        "aws_access_key_id",
        "AWS access key ID",
        ("AKIA", "ASIA", "ABIA", "ACCA"),
        re.compile(
            rf"(?:(?<![A-Z0-9])|{_AFTER_ESCAPE})"
            r"A(?:KIA|SIA|BIA|CCA)(?P<secret>[A-Z0-9]{16})(?![A-Z0-9])"
        ),
    ),
    _Rule(
        "aws_secret_access_key",
        "AWS secret access key",
        (),
        keywords=("aws",),
        pattern=re.compile(
            r"(?i:aws[\w.-]{0,30}?(?:secret|private)[\w.-]{0,30}?)"
            + _ASSIGN
            + r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
    ),
    _Rule(
        "github_token",
        "GitHub token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        re.compile(
            _START_OF_WORD
            + r"(?:gh[pousr]_(?P<secret>[A-Za-z0-9]{36,255})|github_pat_[A-Za-z0-9_]{22,255})"
        ),
    ),
    _Rule(
        "huggingface_token",
        "Hugging Face token",
        ("hf_",),
        re.compile(_START_OF_WORD + r"hf_(?P<secret>[A-Za-z0-9]{30,})"),
    ),
    _Rule(
        "groq_api_key",
        "Groq API key",
        ("gsk_",),
        re.compile(_START_OF_WORD + r"gsk_(?P<secret>[A-Za-z0-9]{40,})"),
    ),
    _Rule(
        "xai_api_key",
        "xAI API key",
        ("xai-",),
        re.compile(_START_OF_WORD + r"xai-(?P<secret>[A-Za-z0-9]{40,})"),
    ),
)
_DOCUMENT_RULES: tuple[_DocumentRule, ...] = (
    _DocumentRule(
        "private_key",
        "private key (PEM)",
        (PEM_MARKER,),
        # The header alone appears in documentation; key material must follow it (possibly
        # after JSON-escaped line breaks).
        re.compile(
            r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:\\[rn]|\s){0,8}"
            r"(?:[A-Za-z0-9+/=]{16}|Proc-Type:|Version:|Comment:)"
        ),
    ),
    _DocumentRule(
        "google_service_account",
        "Google service-account key",
        SERVICE_ACCOUNT_MARKERS,
        re.compile(r'"type"\s{0,10}:\s{0,10}"service_account"'),
    ),
)

# A keyword (api_key, secret, token, ...) assigned a long value, or an Authorization bearer.
# The identifier around the keyword (MISTRAL_API_KEY) names the vendor when there is one.
_KEYWORDS = ("key", "secret", "token", "password", "passwd", "credential", "bearer")
_KEYWORD_VALUE = re.compile(
    r"(?i:(?:key|secret|token|password|passwd|credential)[\w.-]{0,40}?"
    + _ASSIGN
    + r"(?:bearer\s+)?|bearer\s+)"
    + r"(?P<secret>[A-Za-z0-9_\-+/.=~]{20,512})(?![A-Za-z0-9_\-+/.=~])"
)
_KEYWORD_WINDOW = 80
_IDENTIFIER_TAIL = re.compile(r"[\w.-]{0,48}\Z")
_VENDORS = {
    "MISTRAL": "Mistral",
    "COHERE": "Cohere",
    "TOGETHER": "Together AI",
    "DEEPSEEK": "DeepSeek",
    "FIREWORKS": "Fireworks",
    "PERPLEXITY": "Perplexity",
    "PPLX": "Perplexity",
    "OPENROUTER": "OpenRouter",
    "REPLICATE": "Replicate",
    "ANTHROPIC": "Anthropic",
    "OPENAI": "OpenAI",
    "GEMINI": "Google",
    "GOOGLE": "Google",
    "GROQ": "Groq",
    "XAI": "xAI",
    "GROK": "xAI",
    "HUGGING": "Hugging Face",
    "VOYAGE": "Voyage",
    "CEREBRAS": "Cerebras",
    "AZURE": "Azure",
    "NVIDIA": "NVIDIA",
    "AI21": "AI21",
}
_GENERIC_KIND = "API key or secret"
_GENERIC_MIN_LENGTH = 32
_GENERIC_MIN_ENTROPY = 4.0
_VENDOR_MIN_ENTROPY = 3.0
_HEX = re.compile(r"[0-9a-fA-F-]+")

_KEYWORD_PRIORITY = len(_RULES) + len(_DOCUMENT_RULES)
_RUN_TABLE = bytes(0x61 if byte in RUN_CHARACTERS else 0x20 for byte in range(256))
_RUN_NEEDLE = b"a" * MIN_RUN
_DIGIT = re.compile(r"\d")
_JSON_ESCAPE = re.compile(r'\\(?:u([0-9A-Fa-f]{4})|(["\\/bfnrt]))')
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/"}
# JSON inside a JSON string is escaped once more per level; three levels is past anything
# a tool writes by accident, and bounds the cost for text full of backslashes.
_JSON_ESCAPE_LEVELS = 3


def refusal(finding: SecretFinding, where: str, others: int = 0) -> str:
    """The contributor-facing refusal: what and where, never the key itself."""
    description = finding.describe(where)
    more = f" ({others} more found)" if others else ""
    return (
        f"{description[:1].upper()}{description[1:]}{more}. Remove it and try again — "
        "BenchMax never needs your model keys."
    )


def find_secrets(text: str) -> list[SecretFinding]:
    """Every credential-shaped token in ``text``, most specific rule first, no overlaps."""
    text = normalise_for_matching(text)
    lines = LineCounter(text)
    return [
        SecretFinding(code, kind, *lines.locate(start))
        for start, _, code, kind in secret_spans(text)
    ]


def secret_spans(text: str) -> list[tuple[int, int, str, str]]:
    """``(start, end, code, kind)`` of every credential in ``text`` as given (not normalised),
    in order: what a redaction replaces. Callers normalise first when the text may hide one."""
    hints = text_hints(text)
    candidates: list[tuple[int, int, int, str, str]] = []
    if hints is None or hints.long_run:
        for start, end in _long_runs(text):
            candidates.extend(_run_candidates(text, start, end))
    present = hints.markers if hints is not None else None
    for index, document_rule in enumerate(_DOCUMENT_RULES, start=len(_RULES)):
        if all(
            marker in (text if present is None else present) for marker in document_rule.markers
        ):
            candidates.extend(
                (index, *match.span(), document_rule.code, document_rule.kind)
                for match in document_rule.pattern.finditer(text)
            )
    return _without_overlaps(candidates)


def find_secrets_json_aware(text: str) -> list[SecretFinding]:
    """``find_secrets`` of ``text`` as written and with its JSON string escapes decoded.

    Whether the text parses as JSON does not matter: a settings field mixing prose and a
    JSON snippet, NDJSON, or a log with JSON lines hides a key just as well. Decoding keeps
    every line where it is (see ``_unescape``), so line numbers still point at the
    contributor's text; text without a backslash costs one ``in`` check more than
    ``find_secrets``.
    """
    findings = find_secrets(text)
    if "\\" not in text:
        return findings
    seen = {(finding.line, finding.code) for finding in findings}
    decoded = text
    for _ in range(_JSON_ESCAPE_LEVELS):
        decoded, count = _JSON_ESCAPE.subn(_unescape, decoded)
        if not count:
            break
        for finding in find_secrets(decoded):
            if (finding.line, finding.code) not in seen:
                seen.add((finding.line, finding.code))
                findings.append(finding)
    findings.sort(key=lambda finding: (finding.line, finding.column))
    return findings[:_MAX_FINDINGS]


def _unescape(match: re.Match[str]) -> str:
    """One JSON escape decoded, except what would move or merge lines.

    A decoded line break, control character or surrogate half becomes a space: none is ever
    part of a key, and a space separates tokens just as it does.
    """
    code, simple = match.groups()
    if simple is not None:
        return _SIMPLE_ESCAPES.get(simple, " ")
    char = chr(int(code, 16))
    return " " if char.isspace() or unicodedata.category(char) in ("Cc", "Cs") else char


def _long_runs(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of every run of at least 20 key characters.

    Encoding with "replace" turns each non-ASCII character into one "?", so byte offsets
    in the translated copy are exactly the string's offsets.
    """
    marks = text.encode("ascii", "replace").translate(_RUN_TABLE)
    start = marks.find(_RUN_NEEDLE)
    while start >= 0:
        end = marks.find(b" ", start)
        if end < 0:
            end = len(marks)
        yield start, end
        start = marks.find(_RUN_NEEDLE, end)


def _run_candidates(text: str, start: int, end: int) -> Iterator[tuple[int, int, int, str, str]]:
    before = text[max(0, start - _KEYWORD_WINDOW) : start].lower()
    for index, rule in enumerate(_RULES):
        if rule.keywords:
            if any(keyword in before for keyword in rule.keywords):
                match = rule.pattern.search(text, max(0, start - _KEYWORD_WINDOW), end + 1)
                if match and _plausible(rule, match):
                    yield index, *match.span(), rule.code, rule.kind
            continue
        for prefix in rule.prefixes:
            position = text.find(prefix, start, end)
            while position >= 0:
                match = rule.pattern.match(text, position)
                if match and _plausible(rule, match):
                    yield index, *match.span(), rule.code, rule.kind
                position = text.find(prefix, position + 1, end)
    # Identifiers are long runs too, but a keyword's value needs a digit to be a key.
    if any(keyword in before for keyword in _KEYWORDS) and _DIGIT.search(text, start, end):
        keyword = _match_keyword(text, start, end)
        if keyword:
            yield _KEYWORD_PRIORITY, *keyword


def _plausible(rule: _Rule, match: re.Match[str]) -> bool:
    secret = match.groupdict().get("secret")
    return secret is None or shannon_entropy(secret) >= rule.min_entropy


def _match_keyword(text: str, start: int, end: int) -> tuple[int, int, str, str] | None:
    window_start = max(0, start - _KEYWORD_WINDOW)
    match = _KEYWORD_VALUE.search(text, window_start, min(len(text), end + _KEYWORD_WINDOW))
    while match and match.end("secret") <= start:
        match = _KEYWORD_VALUE.search(text, match.end(), min(len(text), end + _KEYWORD_WINDOW))
    if not match or match.start("secret") >= end:
        return None
    value = match.group("secret")
    identifier = _IDENTIFIER_TAIL.search(text, max(0, match.start() - 48), match.start())
    name = (identifier.group() if identifier else "") + text[match.start() : match.start("secret")]
    vendor = next((label for key, label in _VENDORS.items() if key in name.upper()), None)
    if vendor:
        plausible = shannon_entropy(value) >= _VENDOR_MIN_ENTROPY and any(
            char.isdigit() for char in value
        )
    else:
        plausible = _looks_random(value)
    if not plausible:
        return None
    kind = f"{vendor} API key" if vendor else _GENERIC_KIND
    code = f"{vendor.lower().replace(' ', '_')}_api_key" if vendor else "keyword_secret"
    return match.start("secret"), match.end("secret"), code, kind


def _looks_random(value: str) -> bool:
    """Whether a keyword's value is a random token rather than a word, digest or id.

    Identifiers (get_access_token_from_env) lack digits and capitals, hex digests and UUIDs
    are not keys we look for, and English has far lower entropy per character.
    """
    return (
        len(value) >= _GENERIC_MIN_LENGTH
        and _HEX.fullmatch(value) is None
        and any(char.isdigit() for char in value)
        and any(char.isupper() for char in value)
        and any(char.islower() for char in value)
        and shannon_entropy(value) >= _GENERIC_MIN_ENTROPY
    )


def shannon_entropy(value: str) -> float:
    """Bits per character of ``value``'s own character distribution."""
    if not value:
        return 0.0
    length = len(value)
    return -sum(count / length * math.log2(count / length) for count in Counter(value).values())


def _without_overlaps(
    candidates: list[tuple[int, int, int, str, str]],
) -> list[tuple[int, int, str, str]]:
    kept: list[tuple[int, int, str, str]] = []
    for _, start, end, code, kind in sorted(candidates):
        if any(start < kept_end and kept_start < end for kept_start, kept_end, _, _ in kept):
            continue
        kept.append((start, end, code, kind))
        if len(kept) >= _MAX_FINDINGS:
            break
    return sorted(kept, key=lambda item: item[0])
