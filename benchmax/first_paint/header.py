"""The live header, lifted from a page the front end rendered at build time.

Reflex renders every page without a parameter in its route into HTML when it builds (the
header as a signed-out reader sees it, with its generated class names and their style
rules); a page with one (a Test, a contributor) is served an empty shell instead. The first
paint of every page shows the header cut from such a document, so it is the live header's
own markup and styles, not a copy that could drift: when the header changes, so does this.
"""

from __future__ import annotations

import re

_HEADER = re.compile(r"<header\b[^>]*>.*?</header>", re.DOTALL)
_STYLE = re.compile(r'<style data-emotion="css ([^"]*)">.*?</style>', re.DOTALL)
_CLASS = re.compile(r"\bcss-([a-z0-9]+)\b")
# The first paint is drawn beside the page it stands for, so it must not repeat its ids.
_ID = re.compile(r'\sid="[^"]*"')
_ROOT_THEME = re.compile(r'<div data-is-root-theme="true"([^>]*)>')


def live_header(document: str) -> str:
    """``document``'s header with the style rules of its generated classes ("" when it has
    none, as a parameterised page's shell has not)."""
    found = _HEADER.search(document)
    if not found:
        return ""
    header = found.group(0)
    inside = {key for keys in _STYLE.findall(header) for key in keys.split()}
    rules: dict[str, str] = {}
    for tag in _STYLE.finditer(document):
        for key in tag.group(1).split():
            rules.setdefault(key, tag.group(0))
    wanted = dict.fromkeys(_CLASS.findall(header))  # first use first, once each
    missing = [rules[key] for key in wanted if key not in inside and key in rules]
    return "".join(dict.fromkeys(missing)) + _ID.sub("", header)


def theme_attributes(document: str) -> str:
    """The root theme's attributes (accent, gray, radius, its class), so the first paint
    resolves the same theme variables as the page; "" when the document has no root theme."""
    found = _ROOT_THEME.search(document)
    return found.group(1) if found else ""
