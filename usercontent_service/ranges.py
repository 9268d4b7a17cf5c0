"""``Range`` and ``If-None-Match`` for one representation whose ETag is its SHA-256.

Only single byte ranges are served: that is all media players and download resumers send.
A request for several ranges is answered with the whole file, which RFC 9110 allows.
"""

from __future__ import annotations

import re

# Nineteen digits cover any real size and keep int() away from absurd inputs.
_BYTE_RANGE = re.compile(r"\s*(\d{0,19})\s*-\s*(\d{0,19})\s*")


class RangeNotSatisfiableError(Exception):
    """The request asked for bytes the file does not have, or asked in a broken way."""


def parse_range(header: str | None, size: int) -> tuple[int, int] | None:
    """Inclusive ``(start, end)`` to serve, or None to serve the whole file."""
    if not header:
        return None
    unit, _, spec = header.partition("=")
    if unit.strip().lower() != "bytes":
        return None  # a unit we do not support is ignored, per RFC 9110
    if "," in spec:
        return None
    match = _BYTE_RANGE.fullmatch(spec)
    if match is None or size == 0:
        raise RangeNotSatisfiableError
    first, last = match.group(1), match.group(2)
    if not first:
        if not last or int(last) == 0:
            raise RangeNotSatisfiableError
        return max(0, size - int(last)), size - 1
    start = int(first)
    end = size - 1 if not last else min(int(last), size - 1)
    if start >= size or (last and int(last) < start):
        raise RangeNotSatisfiableError
    return start, end


def etag_matches(header: str | None, etag: str) -> bool:
    """Weak comparison, as RFC 9110 requires for ``If-None-Match``."""
    if not header:
        return False
    if header.strip() == "*":
        return True
    return any(candidate.strip().removeprefix("W/") == etag for candidate in header.split(","))
