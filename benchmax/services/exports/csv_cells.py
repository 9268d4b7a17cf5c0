"""CSV cells a spreadsheet will not run: a cell that starts like a formula is neutralised.

Spreadsheets treat a cell whose first character is ``=``, ``+``, ``-`` or ``@`` as a formula
(and tab or carriage return can precede one). Any such text cell — also after leading
spaces, and with the full-width forms some spreadsheets fold to ASCII — gets a leading
apostrophe, the convention spreadsheets show as text. Numbers are written as numbers.
"""

from __future__ import annotations

_TRIGGERS = frozenset("=+-@\t\r\n\uff1d\uff0b\uff0d\uff20")  # and full-width = + - @


def safe_cell(value: object) -> object:
    """The value as a CSV cell: None is empty, text that could be a formula is quoted."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return value
    text = str(value).replace("\x00", "")
    stripped = text.lstrip(" ")
    if stripped and stripped[0] in _TRIGGERS:
        return "'" + text
    return text
