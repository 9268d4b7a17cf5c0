"""Undoing the tricks that hide text from pattern matching.

A key split by zero-width spaces or typed in fullwidth letters still works once a user copies
it, so matching happens on the text a model or a human would effectively read: invisible
characters removed, then NFKC. Line breaks are untouched, so line numbers still point at the
contributor's text.
"""

from __future__ import annotations

import re
import unicodedata

# Zero-width and joiner characters, bidi controls, invisible fillers, variation selectors,
# the byte-order mark and Unicode "tag" characters (used to smuggle hidden ASCII).
INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e0fff]"
)


def normalise_for_matching(text: str) -> str:
    # ASCII has nothing to remove or fold, and isascii() is O(1) on str: the common case
    # (logs, source code) costs nothing.
    if text.isascii():
        return text
    return unicodedata.normalize("NFKC", INVISIBLE.sub("", text))


def first_invisible_offset(text: str) -> int | None:
    match = None if text.isascii() else INVISIBLE.search(text)
    return match.start() if match else None


class LineCounter:
    """1-based line and column of offsets visited in increasing order.

    Counting newlines from the start for every finding would be quadratic on a 20 MiB log
    with many hits; this only counts the stretch since the previous offset.
    """

    def __init__(self, text: str):
        self._text = text
        self._offset = 0
        self._line = 1

    def locate(self, offset: int) -> tuple[int, int]:
        if offset < self._offset:
            self._offset, self._line = 0, 1
        self._line += self._text.count("\n", self._offset, offset)
        self._offset = offset
        return self._line, offset - self._text.rfind("\n", 0, offset)
