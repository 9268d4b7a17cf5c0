"""Contributor Markdown (outputs, notes) as HTML a page may embed, the way GitHub reads it.

Tables, strikethrough, autolinks and fenced code with server-side highlighting; a single
newline is a line break, so a haiku pasted as three lines stays three lines. Raw HTML is off
and images render as plain links (an inline image from any host would let a contributor log
every reader's address). Whatever markdown-it emits is cleaned again by nh3 against a short
allow-list, so a parser bug cannot become script in the page.
"""

from __future__ import annotations

import re
from functools import lru_cache
from html import escape

import nh3
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.token import STANDARD_TYPES
from pygments.util import ClassNotFound

# Deep nesting ("> > > …", nested lists) stops being structure here and reads as text.
_MAX_NESTING = 20
# Highlighting is linear but not free; a huge block is shown plain.
_MAX_HIGHLIGHT_CHARS = 100_000
# markdown-it-py is quadratic on some inputs (long runs of "[" or "_"); past these a text is
# shown as plain preformatted text rather than let one Test cost seconds per render.
_MAX_MARKDOWN_CHARS = 50_000
_MAX_BRACKETS = 2_000
_LANGUAGE = re.compile(r"[A-Za-z0-9_+#.-]{1,32}")

_MARKDOWN = MarkdownIt(
    "commonmark",
    {"html": False, "breaks": True, "linkify": True, "maxNesting": _MAX_NESTING},
).enable(["table", "strikethrough", "linkify"])
_MARKDOWN.disable("image")

_HIGHLIGHT_CLASSES = {name for name in STANDARD_TYPES.values() if name}
_ALLOWED_TAGS = {
    "a", "blockquote", "br", "button", "code", "del", "div", "em", "h1", "h2", "h3", "h4",
    "h5", "h6", "hr", "li", "ol", "p", "pre", "s", "span", "strong", "table", "tbody", "td",
    "th", "thead", "tr", "ul",
}  # fmt: skip
_ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "ol": {"start"},
    "td": {"style"},
    "th": {"style"},
    "button": {"type", "aria-label"},
}
_ALLOWED_CLASSES = {
    "div": {"code-block", "code-head"},
    "pre": {"plain-text"},
    "span": {"code-lang", *_HIGHLIGHT_CLASSES},
    "button": {"copy-code"},
}
LINK_REL = "nofollow ugc noopener noreferrer"


def _language(info: str) -> str:
    """The info string's first word when it looks like a language name, else empty."""
    word = info.strip().split(maxsplit=1)[0] if info.strip() else ""
    return word if _LANGUAGE.fullmatch(word) else ""


def _highlighted(code: str, language: str) -> str:
    if language and len(code) <= _MAX_HIGHLIGHT_CHARS:
        try:
            lexer = get_lexer_by_name(language.lower())
        except ClassNotFound:
            lexer = None
        if lexer is not None:
            return str(highlight(code, lexer, HtmlFormatter(nowrap=True)))
    return escape(code)


def _fence(
    self: RendererHTML, tokens: list[Token], idx: int, _options: OptionsDict, _env: EnvType
) -> str:
    """A code block with its language label and a copy button (the page's script copies)."""
    token = tokens[idx]
    language = _language(token.info)
    label = escape(language) if language else "text"
    return (
        '<div class="code-block"><div class="code-head">'
        f'<span class="code-lang">{label}</span>'
        '<button type="button" class="copy-code" aria-label="Copy code">Copy</button>'
        f"</div><pre><code>{_highlighted(token.content, language)}</code></pre></div>"
    )


_MARKDOWN.add_render_rule("fence", _fence)
_MARKDOWN.add_render_rule("code_block", _fence)


@lru_cache(maxsize=256)
def render_markdown(text: str) -> str:
    """Contributor Markdown as HTML safe to embed: nh3 re-checks whatever markdown-it emits.

    Cached because a published text never changes and the same Test is read again and again.
    """
    if len(text) > _MAX_MARKDOWN_CHARS or text.count("[") > _MAX_BRACKETS:
        html = f'<pre class="plain-text">{escape(text)}</pre>'
    else:
        html = _MARKDOWN.render(text)
    return nh3.clean(
        html,
        tags=_ALLOWED_TAGS,
        attributes=_ALLOWED_ATTRIBUTES,
        allowed_classes=_ALLOWED_CLASSES,
        filter_style_properties={"text-align"},
        url_schemes={"http", "https", "mailto"},
        link_rel=LINK_REL,
    )


def highlight_css(scope: str, style: str) -> str:
    """The token colours of highlighted code under ``scope`` (one pygments style per theme);
    pygments' own page-wide rules (``pre``, line numbers, background) are left out."""
    rules = str(HtmlFormatter(style=style).get_style_defs(scope)).splitlines()
    return "\n".join(rule for rule in rules if rule.startswith(scope + " ."))
