"""Text evidence: strict UTF-8, and JSON or NDJSON that actually parses.

Strict decoding matters because the bytes are served as ``charset=utf-8``; anything else
would show as mojibake, or let invalid sequences reach a viewer's parser.
"""

from __future__ import annotations

import json

from benchmax.services.safety.result import BlockedError

_BOM = b"\xef\xbb\xbf"
JSON_CONTENT_TYPES = frozenset({"application/json", "application/x-ndjson"})
# Names of files that hold JSON in an archive, where no content type was sniffed: data and
# NDJSON, notebooks, HTTP archives (full of request headers), manifests and lock files.
_JSON_SUFFIXES = (
    ".json", ".ndjson", ".jsonl", ".json5", ".geojson", ".ipynb", ".har", ".webmanifest",
)  # fmt: skip


def decode_utf8(data: bytes, label: str) -> str:
    try:
        return data.removeprefix(_BOM).decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise BlockedError(
            "text_not_utf8",
            f"{label} is not UTF-8 text (the first problem is on line {line}). Save it as "
            "UTF-8 and upload it again.",
        ) from None


def looks_like_json(name: str, text: str) -> bool:
    """Whether an archive entry is JSON by its name, or by starting like a JSON document."""
    return name.lower().endswith(_JSON_SUFFIXES) or text.lstrip()[:1] in ("{", "[")


def check_structure(text: str, content_type: str, label: str) -> None:
    """JSON must parse as a whole, NDJSON line by line; other text has no structure to check."""
    if content_type == "application/json":
        _parse(text, label, "text_invalid_json", None)
    elif content_type == "application/x-ndjson":
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                _parse(line, label, "text_invalid_ndjson", number)


def _parse(document: str, label: str, code: str, line: int | None) -> None:
    try:
        json.loads(document)
    except json.JSONDecodeError as error:
        where = line if line is not None else error.lineno
        raise BlockedError(
            code,
            f"{label} is named as JSON but line {where} does not parse as JSON. Fix it, or "
            "rename the file to .txt to upload it as plain text.",
        ) from None
    except RecursionError:
        raise BlockedError(
            code, f"{label} is nested too deeply to read as JSON. Upload it as .txt instead."
        ) from None
