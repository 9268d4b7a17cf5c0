"""Finding credentials in text read by OCR, which damages keys in known ways.

Tesseract confuses O with 0, l with 1 and I, S with 5 (and swaps the case of letters that
look alike), reads a hyphen as a dash, drops or spaces out an underscore, and inserts spaces
inside a long run of characters where the glyph spacing looks wide. A key read that way no
longer matches its rule, so this module rebuilds what the key could have been, and lets the
ordinary rules (``find_secrets``, with their lengths and entropy checks) decide:

- a key's fixed prefix (``sk-ant-``, ``AKIA``, ``ghp_``, …) is found with each of its
  characters allowed any of its look-alikes and a space before it, and is written back
  canonically;
- the body after it is rebuilt from the next few space-separated fragments, joined one more
  at a time (``abc``, ``abcdef``, …): an inserted space and a real one look the same, and
  only a join that yields a whole key survives the rule (a rule that ends at a word boundary
  fails if one fragment too many is joined);
- a joined body must hold a digit, a capital and a small letter (a random key of 20 or more
  characters almost always does) and at most one fragment that reads like a word (all
  letters, lower or title case): that is what keeps joining from turning prose after an
  ``sk-`` or a "key:" into a key;
- dashes and quotes are made ASCII, and a PEM line's run of dashes is made five again.

The text is never kept: only the findings (a kind and a line) leave this module.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from benchmax.services.safety.secrets import SecretFinding, find_secrets

# Each character of a prefix may be read as any of these.
_LOOK_ALIKES = {
    "o": "oO0",
    "0": "0oO",
    "i": "iIl1|!",
    "l": "lI1i|!",
    "1": "1lIi|!",
    "s": "sS5$",
    "5": "5sS",
    "z": "zZ2",
    "a": "aA4@",
    "g": "gG9",
    "k": "kK",
    "-": "-~_",
    "_": "_-~.,",
}
# Prefixes as the rules spell them, longest first within a family.
_PREFIXES = (
    "sk-ant-api03-",
    "sk-ant-admin01-",
    "sk-or-v1-",
    "sk-proj-",
    "sk-svcacct-",
    "sk-admin-",
    "sk-",
    "AIza",
    "AKIA",
    "ASIA",
    "ABIA",
    "ACCA",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "hf_",
    "gsk_",
    "xai-",
)
# Rules whose body is upper case and digits, or lower-case hex: OCR's case and look-alike
# slips inside the body are undone for them.
_UPPER_BODY = ("AKIA", "ASIA", "ABIA", "ACCA")
_HEX_BODY = ("sk-or-v1-",)
_HEX_FIXES = str.maketrans("oOlIiSsZzgG", "00111552299")
_BODY_FIXES = str.maketrans("|!", "ll")
_GENERIC = "keyword_secret"
_MAX_FRAGMENTS = 10
_MAX_BODY = 300
_FRAGMENT = re.compile(r"[^\s\"'`,;()\[\]{}<>=:]+")
# Typographic quotes and dashes (OCR's reading of ASCII ones) made ASCII again.
_ASCII_FIXES = str.maketrans(
    dict.fromkeys("\u201c\u201d\u201e", '"')
    | dict.fromkeys("\u2018\u2019", "'")
    | dict.fromkeys("\u2010\u2011\u2012\u2013\u2014", "-")
)
_DASH_RUN = re.compile(r"-{3,}")
# "service account" with its underscore lost, in the JSON marker's quotes.
_SERVICE_ACCOUNT = re.compile(r"[\"']service.?account[\"']", re.IGNORECASE)
# An identifier spelled with spaces for underscores right before "=" or ":" (AWS_SECRET_…).
# A keyword's name (spaces read for its underscores allowed) and whatever OCR made of the
# assignment after it: "=", ":", a stray letter or mark, or nothing.
_KEYWORD = re.compile(
    r"(?P<name>\b[\w.-]*(?:key|secret|token|password|passwd|credential)(?:[ _.-]?[\w.-]+){0,3}?)"
    r"\s?(?:[=:]|\s[^\s\w]{1,2}|\s\w)?\s?[\"'`]?(?=\S)",
    re.IGNORECASE,
)
_AWS_BODY = 16
_PEM_HEADER = re.compile(r"BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY[ -]*", re.IGNORECASE)
_PEM_CANONICAL = "-----BEGIN PRIVATE KEY-----\n"
_PEM_WINDOW = 200
_PEM_SAMPLE = 40
# What separates a PEM header from its material as OCR reads it: line breaks (real, or
# "\n" typed in a JSON string), spaces, quotes and leftover dashes.
_PEM_FILLER = re.compile(r"\\[nr]|[\s\"'-]")
_B64 = re.compile(r"[A-Za-z0-9+/=]{16,}")


def _fuzzy(prefix: str) -> re.Pattern[str]:
    parts = []
    for char in prefix:
        options = _LOOK_ALIKES.get(char.lower(), char.lower() + char.upper())
        if char.isalpha():
            options += char.lower() + char.upper()
        parts.append("[" + re.escape("".join(dict.fromkeys(options))) + "]")
    return re.compile(r"(?<![A-Za-z0-9])" + " ?".join(parts))


_FUZZY = tuple((prefix, _fuzzy(prefix)) for prefix in _PREFIXES)


def find_secrets_in_ocr(text: str) -> list[SecretFinding]:
    """Every credential ``find_secrets`` sees in ``text`` or in a repair of OCR damage."""
    text = _SERVICE_ACCOUNT.sub(
        '"service_account"', _DASH_RUN.sub("-----", text.translate(_ASCII_FIXES))
    )
    findings: dict[tuple[int, str], SecretFinding] = {}

    def keep(found: list[SecretFinding], line: int | None = None) -> None:
        for finding in found:
            number = finding.line if line is None else line
            findings.setdefault(
                (number, finding.code),
                SecretFinding(finding.code, finding.kind, number, finding.column),
            )

    keep(find_secrets(text))
    for match in _PEM_HEADER.finditer(text):
        number = text.count("\n", 0, match.start()) + 1
        for candidate in _pem_bodies(text, match.end()):
            keep(find_secrets(candidate), number)
    for number, line in enumerate(text.split("\n"), start=1):
        for candidate in _candidates(line):
            keep(find_secrets(candidate), number)
    # A repair can read one key both ways (its prefix, and the keyword it is assigned to):
    # the line then reports the specific kind only.
    specific = {line for line, code in findings if code != _GENERIC}
    return sorted(
        (
            found
            for (line, code), found in findings.items()
            if code != _GENERIC or line not in specific
        ),
        key=lambda finding: (finding.line, finding.column),
    )


def _pem_bodies(text: str, start: int) -> Iterator[str]:
    """A PEM header with the key material after it, spaces and line breaks read out of it."""
    following = _PEM_FILLER.sub("", text[start : start + _PEM_WINDOW])
    material = _B64.match(following)
    if material and _mixed(material.group()[:_PEM_SAMPLE]):
        yield _PEM_CANONICAL + material.group()


def _candidates(line: str) -> Iterator[str]:
    """Repairs of one OCR line that could be keys (each a short string to match alone)."""
    for prefix, pattern in _FUZZY:
        for match in pattern.finditer(line):
            upper = prefix in _UPPER_BODY
            joinable = _has_digit if upper or prefix in _HEX_BODY else _mixed
            for body in _bodies(line, match.end(), joinable):
                if upper:
                    body = body.upper()
                    # OCR adds or drops a character in a run of capitals now and then.
                    if len(body) in (17, 18):
                        yield prefix + body[:_AWS_BODY]
                elif prefix in _HEX_BODY:
                    body = body.lower().translate(_HEX_FIXES)
                yield prefix + body
    for match in _KEYWORD.finditer(line):
        name = match.group("name").replace(" ", "_")
        for body in _bodies(line, match.end(), _mixed):
            yield f"{name} = {body}"


def _bodies(line: str, start: int, joinable: Callable[[str], bool]) -> Iterator[str]:
    """The text after ``start`` joined over one, two, … space-separated fragments; a join
    only when ``joinable`` says the result could be a key and at most one of the joined
    fragments reads like a word (prose after a keyword joins into something key-shaped;
    a key split by OCR almost never yields two all-letter, one-case fragments)."""
    body = ""
    at = start
    words = 0
    for count in range(_MAX_FRAGMENTS):
        if count and not line.startswith(" ", at):
            return
        fragment = _FRAGMENT.match(line, at + (1 if count else 0))
        if fragment is None:
            return
        text = fragment.group()
        words += text.isalpha() and (text.islower() or text.istitle())
        body += text.translate(_BODY_FIXES)
        at = fragment.end()
        if len(body) > _MAX_BODY or (count and words > 1):
            return
        if count == 0 or joinable(body):
            yield body


def _mixed(body: str) -> bool:
    return _has_digit(body) and any(c.isupper() for c in body) and any(c.islower() for c in body)


def _has_digit(body: str) -> bool:
    return any(char.isdigit() for char in body)
