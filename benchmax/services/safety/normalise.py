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

import re
import unicodedata
from collections.abc import Callable

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


_LISTED = tuple(sorted(OTHER_DEFAULT_IGNORABLE + VARIATION_SELECTORS))
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def is_invisible(code: int) -> bool:
    """A format character or a default-ignorable code point (Cf, or DI by the lists above)."""
    return unicodedata.category(chr(code)) == "Cf" or any(
        first <= code <= last for first, last in _LISTED
    )


def is_ignorable_for_matching(code: int) -> bool:
    """Invisible, or unassigned in this Python's Unicode version (see the module docstring)."""
    return is_invisible(code) or unicodedata.category(chr(code)) == "Cn"


def _present(text: str, wanted: Callable[[int], bool]) -> re.Pattern[str] | None:
    """A class of the characters of ``text`` that ``wanted`` picks, or None if there are none.

    Only the distinct non-ASCII characters the text holds are classified (a few hundred even
    in a long log), so nothing enumerates all of Unicode and short texts cost next to nothing.
    """
    found = sorted(char for char in set(_NON_ASCII.findall(text)) if wanted(ord(char)))
    return re.compile("[" + "".join(map(re.escape, found)) + "]") if found else None


def normalise_for_matching(text: str) -> str:
    # ASCII has nothing to remove or fold, and isascii() is O(1) on str: the common case
    # (logs, source code) costs nothing.
    if text.isascii():
        return text
    ignorable = _present(text, is_ignorable_for_matching)
    folded = unicodedata.normalize("NFKC", ignorable.sub("", text) if ignorable else text)
    # Checked again after NFKC, so no compatibility form can bring an ignorable one back.
    again = None if folded.isascii() else _present(folded, is_ignorable_for_matching)
    return again.sub("", folded) if again else folded


def first_invisible_offset(text: str) -> int | None:
    invisible = None if text.isascii() else _present(text, is_invisible)
    match = invisible.search(text) if invisible else None
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
