"""The HTML step: what the server adds to every page's HTML before the browser runs a script.

Reflex renders in the browser, so the document it serves has no title, no description and no
content until the JavaScript and the websocket have run. This middleware rewrites the HTML
documents on their way out:

* every page gets a description and Open Graph tags (``pages``), the theme's background
  (Reflex's own inline script already sets the ``dark``/``light`` class from the stored
  preference before the first paint; this gives that class a colour before any stylesheet
  has arrived), the reading styles and the small script behind copy buttons and inline text
  evidence — all at the end of ``<head>``, where React's hydration does not trip on them;
* ``/tests/{id}`` and ``/u/{handle}`` get their tab title, description and Open Graph /
  Twitter card tags — the Test's own only while it is public — and, with ``/``, a
  first-paint view of what the reader came for (a Test's title, declared model and prompt;
  the first page of cards of the feed or a contributor, see ``cards``) at the
  place the page will show it, taken away by CSS as soon as the real page has rendered;
* a page whose content waits for the server, or whose document is an empty shell, gets grey
  shapes of that content (``pages``). Every such view is drawn under the live header
  (``header``), so no page's first paint lacks it or shows another.

Every value is HTML-escaped here. Evidence is referenced by its user-content URL, never read.
"""

from __future__ import annotations

import gzip
import re
from html import escape, unescape
from pathlib import Path
from urllib.parse import parse_qs

import anyio
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from benchmax.context import AppContext
from benchmax.first_paint.cards import badge_css, feed_view, profile_view
from benchmax.first_paint.header import live_header, theme_attributes
from benchmax.first_paint.pages import page_preview, skeleton_view
from benchmax.presentation.highlight import highlight_css
from benchmax.services import link_preview
from benchmax.services.link_preview import GENERIC, SITE_NAME, Preview

_TEST_PATH = re.compile(r"/tests/([^/]{1,64})/?")
_PROFILE_PATH = re.compile(r"/u/([^/]{1,64})/?")
_FEED_PATH = "/"
_BODY = re.compile(r"<body(?:\s[^>]*)?>")
_TITLE = re.compile(r"<title>(.*?)</title>", re.DOTALL)
# A page the front end renders at build time, whose header every first paint shows.
_HEADER_SOURCE = "/privacy/"
_HEADER_WAIT_SECONDS = 5
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
            _client_file("markdown.css"),
            highlight_css(".markdown-body .code-block", "light"),
            highlight_css(".dark .markdown-body .code-block", "dark"),
        ]
    )


_HEAD_EXTRA = (
    f'<style id="bm-page-style">{_page_style()}</style>'
    f'<script id="bm-page-script">{_client_file("first_paint.js")}</script>'
)


def head_tags(preview: Preview, url: str, *, title: bool = True) -> str:
    """Title (unless the document has its own), description and link-preview tags, every
    value escaped."""
    tags = [
        f"<title data-first-paint>{escape(preview.title)}</title>" if title else "",
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


def first_view(path: str, preview: Preview | None, origin: str) -> str:
    """What the reader came for, drawn until the page has rendered it; "" for a page that
    shows its content at once."""
    if path == _FEED_PATH and preview is not None:
        return feed_view(preview, origin)
    if preview is not None and preview.cards is not None:
        return profile_view(preview, origin)
    if preview is not None:
        return skeleton(preview)
    return skeleton_view(path)


def overlay(document: str, header: str, view: str) -> str:
    """``view`` under the live ``header``, over the whole page in the page's theme."""
    return f'<div id="bm-first-paint"{theme_attributes(document)}>{header}{view}</div>'


def rewrite(document: str, path: str, preview: Preview | None, url: str, view: str) -> str:
    """``document`` with the head additions and tags (a preview route's own, else
    ``pages.page_preview``'s) and ``view`` (``first_view``'s HTML)."""
    own_title = _TITLE.search(document)
    if preview is not None:
        document = _TITLE.sub("", document, count=1)
        head = head_tags(preview, url)
    else:
        page = page_preview(path, unescape(own_title.group(1)) if own_title else "")
        head = head_tags(page, url, title=own_title is None)
    head += _HEAD_EXTRA
    # At the end of the head: React hydrates the document from its first element on, and
    # anything of ours before its own head elements makes it discard the server's tree
    # (error #418) and draw the page again, in different styles.
    document = document.replace("</head>", head + "</head>", 1)
    # The body's own tag: the first one after the head (a script may spell the word earlier).
    body = _BODY.search(document, document.find("</head>") + 1)
    return document[: body.end()] + view + document[body.end() :] if body else document


class FirstPaintMiddleware:
    """Rewrites HTML page responses; everything else passes through untouched."""

    def __init__(
        self, app: ASGIApp, ctx: AppContext, directories: frozenset[str] = frozenset()
    ) -> None:
        """``directories`` are the routes the build writes as ``route/index.html`` (every
        route without a parameter but ``/``)."""
        self.app = app
        self.ctx = ctx
        self.directories = directories
        self._header = ""

    async def header(self, document: str, scope: Scope) -> str:
        """The live header: ``document``'s own, else the one of a page rendered at build time
        (asked of the app once, then kept: the build does not change while it runs)."""
        own = live_header(document)
        if own or self._header:
            return own or self._header
        source = dict(
            scope, path=_HEADER_SOURCE, raw_path=_HEADER_SOURCE.encode(), query_string=b""
        )
        chunks: list[bytes] = []
        asked, answered = anyio.Event(), anyio.Event()

        async def receive() -> Message:
            # The request once; then, to an app listening for the client to leave, that it
            # left once the whole answer was sent.
            if not asked.is_set():
                asked.set()
                return {"type": "http.request", "body": b"", "more_body": False}
            await answered.wait()
            return {"type": "http.disconnect"}

        async def collect(message: Message) -> None:
            if message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    answered.set()

        with anyio.move_on_after(_HEADER_WAIT_SECONDS):  # a page never waits long for it
            await self.app(source, receive, collect)
        self._header = live_header(b"".join(chunks).decode("utf-8", errors="replace"))
        return self._header

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
                filters = parse_qs(query, max_num_fields=20)
                if profile:
                    handle, size = profile.group(1), settings.feed_page_size
                    sort = filters.get("sort", "")
                    return link_preview.preview_of_profile(session, handle, size, sort)
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
        downstream = scope
        if path in self.directories:
            # The static server answers "/leaderboard" with a redirect to "/leaderboard/", a
            # round trip a phone pays before it gets any HTML; the page is asked for as the
            # folder it is instead. What the reader sees (address, og:url) keeps their path.
            downstream = {**scope, "path": path + "/", "raw_path": (path + "/").encode()}
        await self.app(downstream, receive, _Rewriter(self, scope, send, gzip_ok).send_rewritten)


class _Rewriter:
    """Holds an HTML response back until its body is complete, then sends it rewritten."""

    def __init__(
        self, owner: FirstPaintMiddleware, scope: Scope, send: Send, gzip_ok: bool
    ) -> None:
        self.owner, self.scope, self.send, self.gzip_ok = owner, scope, send, gzip_ok
        self.start: Message | None = None
        self.html = False
        self.body: list[bytes] = []

    async def send_rewritten(self, message: Message) -> None:
        """The ``send`` the app answers through: HTML held back and rewritten, the rest as is."""
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
        document = b"".join(self.body).decode("utf-8")
        view = first_view(path, preview, settings.usercontent_origin)
        if view:
            view = overlay(document, await self.owner.header(document, self.scope), view)
        document = rewrite(document, path, preview, url, view)
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
