"""Contributor Markdown (outputs, notes) as HTML a page may embed, the way GitHub reads it.

Tables, strikethrough, autolinks, task lists, footnotes and fenced code with server-side
highlighting; a single newline is a line break, so a haiku pasted as three lines stays three
lines. Raw HTML is off and images render as links (an inline image from any host would let a
contributor log every reader's address). Headings keep their look but sit two levels down
(``#`` is an ``h3`` with the ``md-h1`` class): the page's own ``h1`` and the ``h2`` of the
section holding the Markdown stay the only ones above them. Whatever markdown-it emits is
cleaned again by nh3 against a short allow-list, so a parser bug cannot become script in the
page.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from html import escape

import nh3
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.tasklists import tasklists_plugin
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

# How many levels a contributor's heading sits below the one it was written as.
_HEADING_SHIFT = 2

_MARKDOWN = (
    MarkdownIt(
        "commonmark",
        {"html": False, "breaks": True, "linkify": True, "maxNesting": _MAX_NESTING},
    )
    .enable(["table", "strikethrough", "linkify"])
    # Disabled checkboxes inside a label: the item's text is the box's accessible name.
    .use(tasklists_plugin, label=True)
    .use(footnote_plugin)
)

_HIGHLIGHT_CLASSES = {name for name in STANDARD_TYPES.values() if name}
_HEADING_CLASSES = {f"md-h{level}" for level in range(1, 7)}
_ALLOWED_TAGS = {
    "a", "blockquote", "br", "button", "code", "del", "div", "em", "h3", "h4", "h5", "h6",
    "hr", "input", "label", "li", "ol", "p", "pre", "s", "section", "span", "strong", "sup",
    "table", "tbody", "td", "th", "thead", "tr", "ul",
}  # fmt: skip
_ALLOWED_ATTRIBUTES = {
    "a": {"href", "title", "id", "aria-label"},
    "ol": {"start"},
    "li": {"id"},
    "td": {"style"},
    "th": {"style"},
    "button": {"type", "aria-label"},
    "input": {"type", "checked", "disabled"},
    "div": {"tabindex", "role", "aria-label"},
    "pre": {"tabindex"},
}
# Attributes with one possible value: a scrolling table or code block is a region a keyboard
# can reach and scroll, and a footnote's way back is named.
_FIXED_VALUES = {
    ("div", "tabindex"): "0",
    ("div", "role"): "region",
    ("div", "aria-label"): "Table",
    ("pre", "tabindex"): "0",
    ("a", "aria-label"): "Back to reference",
}
# Whatever a task list's box says, it is a disabled checkbox.
_FORCED_ATTRIBUTES = {"input": {"type": "checkbox", "disabled": "disabled"}}
_ALLOWED_CLASSES = {
    "a": {"footnote-backref"},
    "div": {"code-block", "code-head", "table-wrap"},
    "pre": {"plain-text"},
    "span": {"code-lang", *_HIGHLIGHT_CLASSES},
    "button": {"copy-code"},
    "h3": _HEADING_CLASSES,
    "h4": _HEADING_CLASSES,
    "h5": _HEADING_CLASSES,
    "h6": _HEADING_CLASSES,
    "ul": {"contains-task-list"},
    "ol": {"contains-task-list", "footnotes-list"},
    "li": {"task-list-item", "footnote-item"},
    "input": {"task-list-item-checkbox"},
    "hr": {"footnotes-sep"},
    "section": {"footnotes"},
    "sup": {"footnote-ref"},
}
# The only ids that survive: the footnotes' own, under the text's prefix (see ``_doc_id``),
# so a contributor can never name an element the page's scripts look up.
_FOOTNOTE_ID = re.compile(r"fn(?:ref)?-[0-9a-f]{10}-[0-9]{1,4}(?::[0-9]{1,4})?")
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
        f'</div><pre tabindex="0"><code>{_highlighted(token.content, language)}</code></pre></div>'
    )


def _heading(
    self: RendererHTML, tokens: list[Token], idx: int, _options: OptionsDict, _env: EnvType
) -> str:
    """``#`` … ``######`` two levels down, each with the look of the level it was written as."""
    token = tokens[idx]
    written = int(token.tag[1])
    tag = f"h{min(written + _HEADING_SHIFT, 6)}"
    return f'<{tag} class="md-h{written}">' if token.nesting == 1 else f"</{tag}>\n"


def _table(
    self: RendererHTML, tokens: list[Token], idx: int, _options: OptionsDict, _env: EnvType
) -> str:
    """A table inside a region that scrolls sideways on a narrow screen, reachable by
    keyboard, instead of squeezing its columns."""
    if tokens[idx].nesting == 1:
        return '<div class="table-wrap" tabindex="0" role="region" aria-label="Table"><table>\n'
    return "</table></div>\n"


def _image(
    self: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """An image as a link to it, labelled with its description; inside a link, the
    description alone (a link in a link would leave an empty one behind)."""
    token = tokens[idx]
    alt = escape(self.renderInlineAsText(token.children or [], options, env)) or "image"
    depth = sum(
        1 if t.type == "link_open" else -1 if t.type == "link_close" else 0 for t in tokens[:idx]
    )
    if depth > 0:
        return alt
    src = escape(str(token.attrGet("src") or ""))
    return f'<a href="{src}">Image: {alt}</a>'


def _footnote_backref(
    self: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """The way back from a footnote, with a name a screen reader can say."""
    ident = self.rules["footnote_anchor_name"](tokens, idx, options, env)
    if tokens[idx].meta["subId"] > 0:
        ident += f":{tokens[idx].meta['subId']}"
    return (
        f' <a href="#fnref{ident}" class="footnote-backref" '
        'aria-label="Back to reference">\u21a9\ufe0e</a>'
    )


def _doc_id(text: str) -> str:
    """The footnote ids' prefix: two texts on one page (notes and output) each keep theirs."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]


def _attribute(tag: str, attribute: str, value: str) -> str | None:
    """Ids only of footnotes, and the scroll regions' attributes only with their one value."""
    if attribute == "id":
        return value if _FOOTNOTE_ID.fullmatch(value) else None
    fixed = _FIXED_VALUES.get((tag, attribute))
    return value if fixed is None or value == fixed else None


_MARKDOWN.add_render_rule("fence", _fence)
_MARKDOWN.add_render_rule("code_block", _fence)
_MARKDOWN.add_render_rule("heading_open", _heading)
_MARKDOWN.add_render_rule("heading_close", _heading)
_MARKDOWN.add_render_rule("table_open", _table)
_MARKDOWN.add_render_rule("table_close", _table)
_MARKDOWN.add_render_rule("image", _image)
_MARKDOWN.add_render_rule("footnote_anchor", _footnote_backref)


@lru_cache(maxsize=256)
def render_markdown(text: str) -> str:
    """Contributor Markdown as HTML safe to embed: nh3 re-checks whatever markdown-it emits.

    Cached because a published text never changes and the same Test is read again and again.
    """
    if len(text) > _MAX_MARKDOWN_CHARS or text.count("[") > _MAX_BRACKETS:
        html = f'<pre class="plain-text">{escape(text)}</pre>'
    else:
        html = _MARKDOWN.render(text, {"docId": _doc_id(text)})
    return nh3.clean(
        html,
        tags=_ALLOWED_TAGS,
        attributes=_ALLOWED_ATTRIBUTES,
        attribute_filter=_attribute,
        set_tag_attribute_values=_FORCED_ATTRIBUTES,
        allowed_classes=_ALLOWED_CLASSES,
        filter_style_properties={"text-align"},
        url_schemes={"http", "https", "mailto"},
        link_rel=LINK_REL,
    )
