"""Undoing the tricks that hide text from pattern matching.

A key split by zero-width spaces or typed in fullwidth letters still works once a user copies
it, so matching happens on the text a model or a human would effectively read: characters
that render as nothing removed, then NFKC. Line breaks are untouched, so line numbers still
point at the contributor's text.

What "renders as nothing" is taken from Unicode itself rather than a list of examples:

- every format character (general category Cf: bidi controls, zero-width characters, the
  soft hyphen, tag characters, interlinear annotation U+FFF9 to U+FFFB, musical-symbol
  formatting, …), read from ``unicodedata`` so a newer Python brings its new ones along;
- every other Default_Ignorable_Code_Point. Unicode derives that property
  (DerivedCoreProperties.txt) as Other_Default_Ignorable_Code_Point + Cf +
  Variation_Selector minus White_Space and a few Cf exceptions; ``unicodedata`` exposes neither
  contributing property, so their ranges are copied below from PropList.txt, where they have
  been stable since Unicode 14. None of them is White_Space, and the Cf exceptions are
  format characters we remove anyway.

For matching only, code points unassigned in this Python's Unicode version (Cn) go too: a
newer Unicode may have made one a format character that the reader's browser hides (Unicode
15 added such format controls at U+13439 to U+1343F), and an unassigned character means nothing
to a key. They do not count as "invisible" for the injection signal, which must not fire on
an emoji newer than our tables.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata
from collections.abc import Iterable

# PropList.txt: Other_Default_Ignorable_Code_Point (combining grapheme joiner, Hangul fillers,
# Khmer inherent vowels and reserved blocks) and Variation_Selector, inclusive ranges.
OTHER_DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x2065, 0x2065),
    (0x3164, 0x3164),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0xE0000, 0xE0000),
    (0xE0002, 0xE001F),
    (0xE0080, 0xE00FF),
    (0xE01F0, 0xE0FFF),
)
VARIATION_SELECTORS: tuple[tuple[int, int], ...] = (
    (0x180B, 0x180D),
    (0x180F, 0x180F),
    (0xFE00, 0xFE0F),
    (0xE0100, 0xE01EF),
)


def _in_ranges(ranges: Iterable[tuple[int, int]]) -> set[int]:
    return {code for first, last in ranges for code in range(first, last + 1)}


@functools.cache
def _general_categories() -> tuple[frozenset[int], frozenset[int]]:
    """The format (Cf) and unassigned (Cn) code points of this Python's Unicode version."""
    format_chars: list[int] = []
    unassigned: list[int] = []
    for code in range(sys.maxunicode + 1):
        category = unicodedata.category(chr(code))
        if category == "Cf":
            format_chars.append(code)
        elif category == "Cn":
            unassigned.append(code)
    return frozenset(format_chars), frozenset(unassigned)


@functools.cache
def invisible_code_points() -> frozenset[int]:
    """Every format character and default-ignorable code point (Cf and DI)."""
    listed = _in_ranges(OTHER_DEFAULT_IGNORABLE + VARIATION_SELECTORS)
    return frozenset(listed | _general_categories()[0])


def unassigned_code_points() -> frozenset[int]:
    return _general_categories()[1]


def _ranges(code_points: Iterable[int]) -> str:
    """The code points as the body of a regex class: runs of neighbours become ranges."""
    parts: list[str] = []
    ordered = sorted(code_points)
    if not ordered:
        return ""
    start = previous = ordered[0]
    for code in [*ordered[1:], -1]:
        if code != previous + 1:
            first, last = re.escape(chr(start)), re.escape(chr(previous))
            parts.append(first if start == previous else f"{first}-{last}")
            start = code
        previous = code
    return "".join(parts)


def _character_class(code_points: frozenset[int]) -> re.Pattern[str]:
    """A pattern matching any one of ``code_points``, fast on ordinary text.

    Python's regex engine keeps a class of BMP characters as a bitmap but tests ranges above
    U+FFFF one by one, so the astral part sits behind a one-range lookahead that BMP text
    (nearly all text) fails at once.
    """
    bmp = _ranges(code for code in code_points if code <= 0xFFFF)
    astral = _ranges(code for code in code_points if code > 0xFFFF)
    branches = [f"[{bmp}]"] if bmp else []
    if astral:
        branches.append(f"(?=[\U00010000-\U0010ffff])[{astral}]")
    return re.compile("|".join(branches) or "(?!)")


# Built on first use: enumerating every code point takes about a tenth of a second, which a
# scan of ASCII text (the common case, and every short-lived scan process) never pays.
@functools.cache
def _invisible() -> re.Pattern[str]:
    return _character_class(invisible_code_points())


@functools.cache
def _ignorable_for_matching() -> re.Pattern[str]:
    return _character_class(invisible_code_points() | unassigned_code_points())


def normalise_for_matching(text: str) -> str:
    # ASCII has nothing to remove or fold, and isascii() is O(1) on str: the common case
    # (logs, source code) costs nothing.
    if text.isascii():
        return text
    ignorable = _ignorable_for_matching()
    # Removed again after NFKC, so no compatibility form can bring an ignorable one back.
    return ignorable.sub("", unicodedata.normalize("NFKC", ignorable.sub("", text)))


def first_invisible_offset(text: str) -> int | None:
    match = None if text.isascii() else _invisible().search(text)
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
