"""WCAG contrast between two CSS colours as the browser paints them, for the checks axe cannot
make (a hover colour, a focus ring against what surrounds it)."""

from __future__ import annotations

from playwright.sync_api import Page

# A one-pixel canvas turns any CSS colour syntax, color-mix included, into sRGB bytes.
_RATIO = """
([first, second]) => {
  const pad = document.createElement('canvas').getContext('2d', {willReadFrequently: true});
  const srgb = (value) => {
    pad.clearRect(0, 0, 1, 1);
    pad.fillStyle = value;
    pad.fillRect(0, 0, 1, 1);
    return Array.from(pad.getImageData(0, 0, 1, 1).data.slice(0, 3));
  };
  const channel = (v) => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  const luminance = (rgb) => {
    const [r, g, b] = rgb.map(channel);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [a, b] = [srgb(first), srgb(second)].map(luminance);
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}
"""


def contrast(page: Page, first: str, second: str) -> float:
    """The contrast ratio (1 to 21) of two colours in any CSS syntax."""
    return float(page.evaluate(_RATIO, [first, second]))
