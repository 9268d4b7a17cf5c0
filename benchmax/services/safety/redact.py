"""Redacting credentials out of text BenchMax derives from untrusted bytes.

Typed input is refused at the door (``check_text_field``): its author can fix it. Text that
BenchMax *derives* — what a previewed page printed, threw, titled or requested, what an AI
judge wrote — has no author to ask, so it is kept with every credential-shaped span replaced
by a visible marker ("[removed: looked like an Anthropic API key]"). The detector is the
same table that refuses typed input (``secrets.py``).

``redact`` walks any value generically — strings, dict keys and values, lists, tuples and
dataclass fields at any depth — so a new field in a result can never slip past a per-field
list. It fails closed: after the spans are replaced, the whole string is checked again as
typed input would be (Unicode folding and JSON escapes included); a string that still holds
anything the detector sees is replaced whole by the marker. Strings longer than ``clip`` are
cut *after* redaction, so a cut can never leave a key's head behind its marker.
"""

from __future__ import annotations

import dataclasses
import unicodedata
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from benchmax.services.safety.normalise import is_ignorable_for_matching
from benchmax.services.safety.secrets import find_secrets_json_aware, secret_spans

V = TypeVar("V")

# A PEM block's redaction runs to its END line, however many lines of key lie between.
_PEM_CODE = "private_key"
_PEM_CLOSE = "-----"
# A string nested deeper than this in a derived value is replaced whole (no result is this
# deep; it bounds the walk on hostile input).
_MAX_DEPTH = 32


def marker(kind: str) -> str:
    """The visible stand-in for a removed credential: what it looked like, never any of it."""
    article = "an" if kind[:1].lower() in "aeiox" else "a"
    return f"[removed: looked like {article} {kind}]"


@dataclass(frozen=True)
class Redacted(Generic[V]):
    """``value`` with every credential replaced; ``count`` spans (or whole strings) removed."""

    value: V
    count: int = 0
    kinds: tuple[str, ...] = ()


def redact(value: V, *, clip: int | None = None) -> Redacted[V]:
    """``value`` with every credential in every string replaced by its marker."""
    kinds: list[str] = []
    cleaned = _walk(value, kinds, clip, 0)
    return Redacted(cleaned, len(kinds), tuple(dict.fromkeys(kinds)))


def _walk(value: Any, kinds: list[str], clip: int | None, depth: int) -> Any:
    if isinstance(value, str):
        return _text(value, kinds, clip)
    if value is None or isinstance(value, bool | int | float):
        return value
    if depth > _MAX_DEPTH:
        kinds.append("nested value")
        return marker("nested value")
    if isinstance(value, dict):
        return {
            _walk(key, kinds, clip, depth + 1): _walk(item, kinds, clip, depth + 1)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        items = [_walk(item, kinds, clip, depth + 1) for item in value]
        return items if isinstance(value, list) else tuple(items)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {
            field.name: _walk(getattr(value, field.name), kinds, clip, depth + 1)
            for field in dataclasses.fields(value)
            if field.init
        }
        return dataclasses.replace(value, **changes)
    # Anything else (bytes, a model row) is not text this gate can vouch for.
    raise TypeError(f"redact() cannot walk a {type(value).__name__}")


def _text(text: str, kinds: list[str], clip: int | None) -> str:
    cleaned = _replace_spans(text, kinds)
    leftover = find_secrets_json_aware(cleaned)
    if leftover:
        # Hidden in a way the span mapping cannot point at (JSON escapes, a fold across
        # characters): nothing of this string is kept.
        kinds.append(leftover[0].kind)
        return marker(leftover[0].kind)
    if clip is not None and len(cleaned) > clip:
        cleaned = cleaned[: clip - 1] + "…"
    return cleaned


def _replace_spans(text: str, kinds: list[str]) -> str:
    folded, origin = _folded_with_origin(text)
    spans = secret_spans(folded)
    if not spans:
        return text
    pieces: list[str] = []
    position = 0
    for start, end, code, kind in spans:
        first, last = origin[start], origin[end - 1] + 1
        if code == _PEM_CODE:
            last = _pem_end(text, last)
        if first < position:
            continue
        pieces += [text[position:first], marker(kind)]
        kinds.append(kind)
        position = last
    pieces.append(text[position:])
    return "".join(pieces)


def _pem_end(text: str, after: int) -> int:
    """Past the END line of the PEM block that starts before ``after``; else the text's end."""
    end = text.find("-----END", after)
    if end < 0:
        return len(text)
    close = text.find(_PEM_CLOSE, end + len("-----END"))
    return len(text) if close < 0 else close + len(_PEM_CLOSE)


def _folded_with_origin(text: str) -> tuple[str, list[int]]:
    """The text as the detector reads it (invisible characters gone, each character
    NFKC-folded) and, for each of its characters, the index it came from in ``text``."""
    if text.isascii():
        return text, list(range(len(text)))
    folded: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        if ord(char) > 0x7F and is_ignorable_for_matching(ord(char)):
            continue
        piece = unicodedata.normalize("NFKC", char) if ord(char) > 0x7F else char
        folded.append(piece)
        origin.extend([index] * len(piece))
    return "".join(folded), origin
