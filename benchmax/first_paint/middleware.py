"""The HTML step: what the server adds to every page's HTML before the browser runs a script.

Reflex renders in the browser, so the document it serves has no title, no description and no
content until the JavaScript and the websocket have run. This middleware rewrites the HTML
documents on their way out:

* every page gets the theme's background in ``<head>`` (Reflex's own inline script already
  sets the ``dark``/``light`` class from the stored preference before the first paint; this
  gives that class a colour before any stylesheet has arrived), the reading styles and the
  small script behind copy buttons and inline text evidence;
* ``/tests/{id}`` and ``/u/{handle}`` get their tab title, description and Open Graph /
  Twitter card tags — the Test's own only while it is public — and, with ``/``, a
  first-paint view of what the reader came for (a Test's title, declared model and prompt;
  the first page of cards of the feed or a contributor, see ``cards``) at the
  place the page will show it, taken away by CSS as soon as the real page has rendered.

Every value is HTML-escaped here. Evidence is referenced by its user-content URL, never read.
"""

from __future__ import annotations

import gzip
import re
from html import escape
from pathlib import Path
from urllib.parse import parse_qs

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from benchmax.context import AppContext
from benchmax.first_paint.cards import badge_css, feed_view, profile_view
from benchmax.services import link_preview
from benchmax.services.link_preview import GENERIC, SITE_NAME, Preview
from benchmax.services.markdown import highlight_css

_TEST_PATH = re.compile(r"/tests/([^/]{1,64})/?")
_PROFILE_PATH = re.compile(r"/u/([^/]{1,64})/?")
_FEED_PATH = "/"
_BODY = re.compile(r"<body(?:\s[^>]*)?>")
# Requests for files (anything with a dot in its last segment), the API and Reflex's own
# endpoints are never pages.
_NOT_PAGES = ("/api/", "/_", "/assets/", "/healthz", "/ping")
# The rewritten document differs per URL and per Test, so the static server's validators
# (one ETag for the shared SPA shell) must not be used to answer "not modified".
_DROPPED_REQUEST_HEADERS = {b"accept-encoding", b"if-none-match", b"if-modified-since", b"range"}
_CLIENT = Path(__file__).with_name("client")


def _client_file(name: str) -> str:
    return (_CLIENT / name).read_text(encoding="utf-8")


def _page_style() -> str:
    return "\n".join(
        [
            _client_file("first_paint.css"),
            badge_css(),
            highlight_css(".markdown-body .code-block", "default"),
            highlight_css(".dark .markdown-body .code-block", "monokai"),
        ]
    )


_HEAD_EXTRA = (
    f'<style id="bm-page-style">{_page_style()}</style>'
    f'<script id="bm-page-script">{_client_file("first_paint.js")}</script>'
)


def head_tags(preview: Preview, url: str) -> str:
    """Title, description and link-preview tags, every value escaped."""
    tags = [
        f"<title data-first-paint>{escape(preview.title)}</title>",
        _meta("name", "description", preview.description),
        _meta("property", "og:site_name", SITE_NAME),
        _meta("property", "og:type", preview.kind),
        _meta("property", "og:title", preview.title),
        _meta("property", "og:description", preview.description),
        _meta("property", "og:url", url),
        _meta("name", "twitter:card", "summary_large_image" if preview.image else "summary"),
        _meta("name", "twitter:title", preview.title),
        _meta("name", "twitter:description", preview.description),
    ]
    if preview.image:
        tags += [
            _meta("property", "og:image", preview.image),
            _meta("name", "twitter:image", preview.image),
        ]
    for number, (label, value) in enumerate(preview.facts[:2], start=1):
        tags += [
            _meta("name", f"twitter:label{number}", label),
            _meta("name", f"twitter:data{number}", value),
        ]
    return "".join(tags)


def _meta(attribute: str, key: str, value: str) -> str:
    return f'<meta {attribute}="{escape(key)}" content="{escape(value)}" data-first-paint>'


def skeleton(preview: Preview) -> str:
    """The first paint of a Test page: fixed-height blocks where the page's heading and
    prompt will be, with the real heading and prompt when public."""
    heading = (
        f'<h1 class="fp-title">{escape(preview.heading)}</h1>'
        if preview.heading
        else '<div class="fp-bar fp-title-bar"></div>'
    )
    byline = (
        f'<p class="fp-byline">{escape(preview.byline)}</p>'
        if preview.byline
        else '<div class="fp-bar fp-byline-bar"></div>'
    )
    prompt = (
        f'<h2 class="fp-section">Prompt</h2><pre class="fp-prompt" id="fp-prompt">'
        f"{escape(preview.prompt)}</pre>"
        if preview.prompt
        else '<div class="fp-bar fp-block"></div>'
    )
    return f'<div class="fp-main">{heading}{byline}{prompt}</div>'


def first_view(path: str, preview: Preview, origin: str) -> str:
    """The view over the page, below its header, until the page has rendered its own."""
    if path == _FEED_PATH:
        body = feed_view(preview, origin)
    elif preview.cards is not None:
        body = profile_view(preview, origin)
    else:
        body = skeleton(preview)
    return f'<div id="bm-first-paint">{body}</div>'


def rewrite(document: str, preview: Preview | None, url: str, view: str = "") -> str:
    """``document`` with the head additions, and for a preview route its tags and ``view``
    (``first_view``'s HTML)."""
    head = _HEAD_EXTRA
    if preview is not None:
        document = re.sub(r"<title>.*?</title>", "", document, count=1, flags=re.DOTALL)
        head = head_tags(preview, url) + head
    document = document.replace("<head>", "<head>" + head, 1)
    # The body's own tag: the first one after the head (a script may spell the word earlier).
    body = _BODY.search(document, document.find("</head>") + 1)
    return document[: body.end()] + view + document[body.end() :] if body else document


class FirstPaintMiddleware:
    """Rewrites HTML page responses; everything else passes through untouched."""

    def __init__(self, app: ASGIApp, ctx: AppContext) -> None:
        self.app = app
        self.ctx = ctx

    def _preview(self, path: str, query: str) -> Preview | None:
        """The preview a route gets (generic for anything not public), None for other pages."""
        test = _TEST_PATH.fullmatch(path)
        profile = _PROFILE_PATH.fullmatch(path)
        if not test and not profile and path != _FEED_PATH:
            return None
        settings = self.ctx.settings
        try:
            with self.ctx.session() as session:
                if test:
                    origin = settings.usercontent_origin
                    return link_preview.preview_of_test(session, test.group(1), origin)
                if profile:
                    handle = profile.group(1)
                    return link_preview.preview_of_profile(session, handle, settings.feed_page_size)
                filters = parse_qs(query, max_num_fields=20)
                return link_preview.preview_of_feed(session, filters, settings.feed_page_size)
        except Exception:
            return GENERIC  # a broken database must not break the page itself

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        last = path.rsplit("/", 1)[-1]
        if (
            scope["type"] != "http"
            or scope.get("method") != "GET"
            or path.startswith(_NOT_PAGES)
            or "." in last
        ):
            await self.app(scope, receive, send)
            return
        scope = dict(scope)
        # Without the server's "send this file" shortcut the static server streams the body
        # through here, where it can be rewritten.
        extensions = dict(scope.get("extensions") or {})
        extensions.pop("http.response.pathsend", None)
        extensions.pop("http.response.zerocopysend", None)
        scope["extensions"] = extensions
        headers = scope.get("headers", [])
        gzip_ok = any(
            name.lower() == b"accept-encoding" and b"gzip" in value.lower()
            for name, value in headers
        )
        scope["headers"] = [
            (name, value) for name, value in headers if name.lower() not in _DROPPED_REQUEST_HEADERS
        ]
        await _Rewriter(self, scope, send, gzip_ok).run(receive)


class _Rewriter:
    """Holds an HTML response back until its body is complete, then sends it rewritten."""

    def __init__(
        self, owner: FirstPaintMiddleware, scope: Scope, send: Send, gzip_ok: bool
    ) -> None:
        self.owner, self.scope, self.send, self.gzip_ok = owner, scope, send, gzip_ok
        self.start: Message | None = None
        self.html = False
        self.body: list[bytes] = []

    async def run(self, receive: Receive) -> None:
        await self.owner.app(self.scope, receive, self._send)

    async def _send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            content_type = MutableHeaders(scope=message).get("content-type", "")
            self.html = content_type.startswith("text/html")
            if not self.html:
                await self.send(message)
            else:
                self.start = message
            return
        if not self.html or message["type"] != "http.response.body":
            await self.send(message)
            return
        self.body.append(message.get("body", b""))
        if not message.get("more_body", False):
            await self._finish()

    async def _finish(self) -> None:
        assert self.start is not None
        path = self.scope.get("path", "")
        query = self.scope.get("query_string", b"").decode("latin-1")
        preview = await run_in_threadpool(self.owner._preview, path, query)
        settings = self.owner.ctx.settings
        url = settings.app_origin.rstrip("/") + path
        view = first_view(path, preview, settings.usercontent_origin) if preview else ""
        document = rewrite(b"".join(self.body).decode("utf-8"), preview, url, view)
        document_bytes = document.encode("utf-8")
        headers = MutableHeaders(scope=self.start)
        for name in ("etag", "last-modified", "content-encoding"):
            if name in headers:
                del headers[name]
        # The rewritten document is about five times smaller compressed, which on a slow phone
        # link is most of the first paint. It holds no secret (no token, no per-viewer data:
        # the page's state arrives over the websocket), so compressing it beside reflected
        # query text gives a BREACH-style attack nothing to recover.
        if self.gzip_ok:
            document_bytes = gzip.compress(document_bytes, compresslevel=6, mtime=0)
            headers["content-encoding"] = "gzip"
        headers["vary"] = "Accept-Encoding"
        headers["content-length"] = str(len(document_bytes))
        headers["cache-control"] = "no-cache"
        await self.send(self.start)
        await self.send({"type": "http.response.body", "body": document_bytes, "more_body": False})
