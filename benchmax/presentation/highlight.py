"""The colours of highlighted code in contributor Markdown, per theme.

``services.markdown`` marks tokens with pygments' short classes; these rules colour them. A
pygments style is picked for its look, not for WCAG, so every colour is brought up to AA on
the backgrounds code sits on (``CODE_BACKGROUNDS``) before it reaches a page.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pygments.formatters import HtmlFormatter

from benchmax.presentation.colours import CODE_BACKGROUNDS
from benchmax.presentation.contrast import readable

# The style each theme's code is drawn in: pygments' default reads like GitHub's light code,
# github-dark is GitHub's own dark palette.
STYLES = {"light": "default", "dark": "github-dark"}
# A text colour and a background colour in one of pygments' rules.
_COLOUR = re.compile(r"(?<![-\w])color: (#[0-9A-Fa-f]{6}|#[0-9A-Fa-f]{3})\b")
_BACKGROUND = re.compile(r"background-color: (#[0-9A-Fa-f]{6}|#[0-9A-Fa-f]{3})\b")


def highlight_css(scope: str, theme: str) -> str:
    """The token rules of ``theme`` under ``scope``; pygments' own page-wide rules (``pre``,
    line numbers, background) are left out."""
    rules = str(HtmlFormatter(style=STYLES[theme]).get_style_defs(scope)).splitlines()
    backgrounds = CODE_BACKGROUNDS[theme]
    return "\n".join(
        _readable_rule(rule, backgrounds) for rule in rules if rule.startswith(scope + " .")
    )


def _readable_rule(rule: str, backgrounds: Sequence[str]) -> str:
    """One rule with its text colour readable on the token's own background if it sets one,
    else on every background code sits on."""
    own = _BACKGROUND.search(rule)
    grounds = [own.group(1)] if own else backgrounds
    return _COLOUR.sub(lambda match: "color: " + readable(match.group(1), grounds), rule)
