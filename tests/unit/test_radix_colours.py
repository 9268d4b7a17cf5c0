"""Every Radix colour scale the UI paints with is in the trimmed stylesheet.

``benchmax/components/radix_styles.py`` imports only the scales it lists; a ``color_scheme``
or ``var(--name-N)`` naming another would render uncoloured, silently. The scan reads every
quoted scale name and every CSS variable of a scale in the product and its stylesheets.
"""

from __future__ import annotations

import re
from pathlib import Path

from benchmax.components.radix_styles import COLOURS, STYLESHEETS

ROOT = Path(__file__).resolve().parents[2]
# Radix Themes' colour scales (one file each under @radix-ui/themes/tokens/colors/).
SCALES = [
    "amber",
    "blue",
    "bronze",
    "brown",
    "crimson",
    "cyan",
    "gold",
    "grass",
    "gray",
    "green",
    "indigo",
    "iris",
    "jade",
    "lime",
    "mauve",
    "mint",
    "olive",
    "orange",
    "pink",
    "plum",
    "purple",
    "red",
    "ruby",
    "sage",
    "sand",
    "sky",
    "slate",
    "teal",
    "tomato",
    "violet",
    "yellow",
]
_QUOTED = re.compile(r"[\"'](" + "|".join(SCALES) + r")[\"']")
_CSS_VAR = re.compile(r"var\(--(" + "|".join(SCALES) + r")-a?\d+")


def _used(text: str) -> set[str]:
    return set(_QUOTED.findall(text)) | set(_CSS_VAR.findall(text))


def _product_sources() -> list[Path]:
    sources = [*ROOT.joinpath("benchmax").rglob("*.py"), *ROOT.joinpath("assets").rglob("*.css")]
    return [path for path in sources if path.name != "radix_styles.py"]


def test_the_scan_sees_colours_in_both_spellings() -> None:
    text = 'rx.badge("x", color_scheme="tomato")\n.a { color: var(--jade-a11); }'
    assert _used(text) == {"tomato", "jade"}
    assert _used("the red fox, 'scarlet', var(--accent-9)") == set()


def test_every_colour_the_ui_uses_is_imported() -> None:
    used: set[str] = set()
    for path in _product_sources():
        used |= _used(path.read_text(encoding="utf-8"))
    assert "iris" in used  # the accent: the scan reads the real sources
    assert used - set(COLOURS) == set()


def test_the_stylesheet_keeps_base_components_and_utilities() -> None:
    assert STYLESHEETS[0].endswith("tokens/base.css")
    assert {Path(sheet).name for sheet in STYLESHEETS[-2:]} == {"components.css", "utilities.css"}
    assert all(f"colors/{name}.css" in " ".join(STYLESHEETS) for name in COLOURS)
