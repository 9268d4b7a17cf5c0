"""WCAG 2.2 contrast, and the nearest colour that meets it: text colours a theme did not pick
(a syntax-highlighting style's) are brought up to AA against the backgrounds they sit on."""

from __future__ import annotations

from collections.abc import Iterable

AA = 4.5


def _rgb(colour: str) -> tuple[int, int, int]:
    """``#rgb`` or ``#rrggbb`` as its three channels."""
    digits = colour.lstrip("#")
    if len(digits) == 3:
        digits = "".join(digit * 2 for digit in digits)
    return int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16)


def _luminance(colour: str) -> float:
    linear = [
        c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
        for c in (channel / 255 for channel in _rgb(colour))
    ]
    red, green, blue = linear
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(first: str, second: str) -> float:
    lighter, darker = sorted((_luminance(first), _luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def readable(colour: str, backgrounds: Iterable[str], minimum: float = AA) -> str:
    """``colour`` as ``#rrggbb`` if it already reads on every background, else mixed towards
    black (light backgrounds) or white (dark ones) just far enough that it does: the hue
    stays recognisable, only its lightness moves."""
    grounds = list(backgrounds)
    dark = sum(_luminance(ground) for ground in grounds) / len(grounds) < 0.5
    target = 255 if dark else 0
    red, green, blue = _rgb(colour)
    for step in range(101):
        share = step / 100
        mixed = "#" + "".join(
            f"{round(channel + (target - channel) * share):02x}" for channel in (red, green, blue)
        )
        if all(contrast(mixed, ground) >= minimum for ground in grounds):
            return mixed
    return mixed
