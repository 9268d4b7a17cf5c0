"""Radix Themes with only the colour scales the app paints with.

Radix's one-file stylesheet carries all 31 colour scales (light, dark and wide-gamut each):
about 700 kB of CSS the phone parses, and whose selectors every style recalculation walks,
before the first interaction. Radix ships the same stylesheet in parts (base tokens, one file
per colour, components, utilities); this plugin imports the parts with only the scales named in
``COLOURS``. ``tests/unit/test_radix_colours.py`` fails when the UI names a colour not listed.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import reflex as rx

# The accent (iris), the gray it pairs with (slate, and "gray" itself), and every
# ``color_scheme`` or ``var(--name-N)`` the UI uses.
COLOURS = ("amber", "blue", "grass", "gray", "green", "iris", "orange", "red", "slate")

STYLESHEETS = (
    "@radix-ui/themes/tokens/base.css",
    *(f"@radix-ui/themes/tokens/colors/{name}.css" for name in COLOURS),
    "@radix-ui/themes/components.css",
    "@radix-ui/themes/utilities.css",
)


@dataclasses.dataclass
class TrimmedRadixThemesPlugin(rx.plugins.RadixThemesPlugin):
    """Radix Themes as the stock plugin sets it up, with the trimmed stylesheet."""

    def get_stylesheet_paths(self, **context: Any) -> tuple[str, ...]:
        return STYLESHEETS if self.enabled else ()

    def get_frontend_dependencies(self, **context: Any) -> tuple[str, ...]:
        # Reflex offers every plugin dependency to dynamic components by importing its whole
        # namespace on every page, so the bundler keeps every Radix component; the app has no
        # dynamic components, and the components it renders declare the package themselves.
        return ()
