"""Normalisation before matching, checked over every code point of the classes it removes.

The removed set is compared with an independent copy of Unicode's tables (the ``regex``
package's ``Default_Ignorable_Code_Point``), and every member is shown to hide nothing: a key
split by it, or prefixed and suffixed with it, is still found on the right line.
"""

from __future__ import annotations

import sys
import unicodedata

import regex

from benchmax.services.safety import find_secrets, injection_signals
from benchmax.services.safety.normalise import (
    first_invisible_offset,
    is_ignorable_for_matching,
    is_invisible,
    normalise_for_matching,
)
from tests.unit.safety.corpus import fake_secrets

ALL_CODE_POINTS = range(sys.maxunicode + 1)
FORMAT = frozenset(c for c in ALL_CODE_POINTS if unicodedata.category(chr(c)) == "Cf")
_DI = regex.compile(r"\p{Default_Ignorable_Code_Point}")
# regex's tables may be newer than this Python's; a code point Python does not know is "Cn"
# here and removed for matching anyway, so the comparison covers assigned code points.
DEFAULT_IGNORABLE = frozenset(
    c
    for c in ALL_CODE_POINTS
    if _DI.match(chr(c)) and unicodedata.category(chr(c)) not in ("Cn", "Cs")
)
KEY = fake_secrets()["anthropic_api_key"]
INVISIBLE = frozenset(c for c in ALL_CODE_POINTS if is_invisible(c))
IGNORABLE = frozenset(c for c in ALL_CODE_POINTS if is_ignorable_for_matching(c))
UNASSIGNED = IGNORABLE - INVISIBLE


def test_the_invisible_set_is_every_format_and_default_ignorable_code_point() -> None:
    invisible = INVISIBLE
    assert invisible >= FORMAT | DEFAULT_IGNORABLE
    extra = invisible - FORMAT - DEFAULT_IGNORABLE
    # Only reserved (unassigned) default-ignorables may be beyond the two tables.
    assert all(unicodedata.category(chr(c)) == "Cn" for c in extra)
    # The examples the set must not miss, from several blocks (spot checks of the above).
    for code in (0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x17B4, 0x180E, 0x200B, 0x202E):
        assert code in invisible
    for code in (0x2066, 0x3164, 0xFE0F, 0xFEFF, 0xFFA0, 0xFFF9, 0xFFFB, 0x1D173, 0xE0041):
        assert code in invisible
    for code in (0xE0100, 0xE01EF, 0xE0FFF):
        assert code in invisible


def test_nothing_visible_is_removed() -> None:
    removed = IGNORABLE
    for code in (ord("a"), ord("\n"), ord("\t"), ord(" "), 0x00E9, 0x4E2D, 0x1F600, 0xE000):
        assert code not in removed


def test_every_invisible_code_point_is_removed_and_hides_no_key() -> None:
    """All of them, reserved default-ignorables included (about four thousand)."""
    for code in sorted(INVISIBLE | FORMAT | DEFAULT_IGNORABLE):
        char = chr(code)
        assert normalise_for_matching(f"a{char}b") == "ab", hex(code)
        hidden = KEY[:9] + char + KEY[9:40] + char * 2 + KEY[40:]
        findings = find_secrets(f"one\n{char}two\n{char}{hidden}{char}\n")
        assert [(f.code, f.line) for f in findings] == [("anthropic_api_key", 3)], hex(code)


def test_unassigned_code_points_are_removed_for_matching_but_are_not_invisible() -> None:
    unassigned = sorted(UNASSIGNED)
    assert all(unicodedata.category(chr(c)) == "Cn" for c in unassigned)
    assert len(unassigned) > 100_000
    text = KEY[:12] + "".join(chr(c) for c in unassigned[::5000]) + KEY[12:]
    assert [finding.code for finding in find_secrets(text)] == ["anthropic_api_key"]
    # A character newer than this Python's tables (a new emoji, say) is not hidden text.
    newest = chr(unassigned[0])
    assert first_invisible_offset(f"hello {newest}") is None
    assert injection_signals(f"hello {newest}") == []


def test_nfkc_never_brings_a_removed_code_point_back() -> None:
    folding = [c for c in ALL_CODE_POINTS if not 0xD800 <= c <= 0xDFFF]
    folding = [c for c in folding if unicodedata.normalize("NFKC", chr(c)) != chr(c)]
    assert len(folding) > 4000  # compatibility characters: fullwidth, ligatures, circled…
    for code in folding:
        folded = normalise_for_matching(chr(code) + "\u00e9")
        assert not any(is_ignorable_for_matching(ord(char)) for char in folded), hex(code)


def test_line_numbers_point_at_the_contributors_text() -> None:
    noise = "".join(chr(c) for c in sorted(FORMAT)[:50])
    text = f"{noise}\n{noise}line two\r\n\u2028still line three\n{noise}{KEY}"
    (finding,) = find_secrets(text)
    assert finding.line == 4
    assert injection_signals(text)[0] == {"code": "invisible_characters", "line": 1}
