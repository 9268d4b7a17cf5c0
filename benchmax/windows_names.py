"""Windows' reserved device names, made safe wherever BenchMax hands out a file name.

Windows opens ``CON``, ``NUL``, ``COM1`` … as devices whatever their case and extension
(``nul.txt``, ``Com1 .tar.gz``, and also the superscript digits ``COM¹`` to ``COM³``), so a
download saved under such a name writes to a device or fails. The stored name and the
``Content-Disposition`` name both pass through here. This module imports nothing so that the
cookieless user-content service may use it without reaching any other BenchMax code.
"""

from __future__ import annotations

_DIGITS = "0123456789¹²³"
DEVICE_NAMES = frozenset(
    {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "CLOCK$"}
    | {f"{port}{digit}" for port in ("COM", "LPT") for digit in _DIGITS}
)


def is_device_name(name: str) -> bool:
    """Whether Windows would take ``name`` for a device: the part before the first dot,
    without the trailing spaces Windows ignores, is a device name in any case."""
    base = name.partition(".")[0].rstrip(" ")
    return base.upper() in DEVICE_NAMES


def defuse_device_name(name: str) -> str:
    """``name``, with ``_`` after its device-name part when it has one: ``CON.txt`` becomes
    ``CON_.txt``, which every system saves as an ordinary file."""
    if not is_device_name(name):
        return name
    base, dot, rest = name.partition(".")
    return base.rstrip(" ") + "_" + dot + rest
