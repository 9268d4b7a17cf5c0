"""Conditional GETs for the public reads: ETag, Last-Modified, 304 and Cache-Control.

A read's validator is computed from the data version (``services/data_version.py``) and the
request's path and query, never from its body: a revalidation that finds nothing changed
costs one small query (or none, within ``api_cache_version_ttl_seconds`` of the last), and
answers 304 without building anything. A body that is built is kept, keyed by its ETag, in a
small per-process cache, so the next reader of the same page at the same version is sent the
same bytes without building them again.

No validator is sent while the newest change is younger than ``api_cache_settle_seconds``:
a transaction that stamped its rows a moment earlier may commit after one that stamped later,
and a validator taken in between would name a version the page has already left.

Cache-Control: anonymous reads are ``public`` and short with ``stale-while-revalidate``;
a request that carries a credential gets ``private`` (shared caches never keep it); sealed,
immutable bodies say so.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from email.utils import parsedate_to_datetime
from urllib.parse import urlencode

from sqlmodel import Session
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from benchmax.api.auth import has_credentials
from benchmax.context import AppContext
from benchmax.models._base import utcnow
from benchmax.services.data_version import DataVersion, data_version
from benchmax.services.dates import http_date

PUBLIC_LIST = "public, max-age=30, stale-while-revalidate=300"
PUBLIC_ITEM = "public, max-age=60, stale-while-revalidate=600"
IMMUTABLE = "public, max-age=31536000, immutable"
SIGNED_IN = "private, no-cache"
_BODY_CACHE_BYTES = 32 * 1024 * 1024
_LARGEST_CACHED_BODY = 1024 * 1024


@dataclass(frozen=True)
class Rendered:
    """A built body and the headers that belong with it (a ``Link``, a disposition)."""

    body: bytes
    media_type: str
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Freshness:
    """What a read's validators come from: the data version, plus what only this resource
    knows (its own change time, a judge's state) and whether its body never changes."""

    extra: str = ""
    last_modified: datetime | None = None
    sealed: bool = False
    # Last-Modified is the data version's newest stamp (a feed of everything recent).
    dated: bool = False


class _Versions:
    """The data version each context read last, reused for ``ttl`` seconds."""

    def __init__(self) -> None:
        self._read: dict[int, tuple[float, DataVersion]] = {}
        self._lock = threading.Lock()

    def current(self, ctx: AppContext, session: Session) -> DataVersion:
        ttl = ctx.settings.api_cache_version_ttl_seconds
        now = time.monotonic()
        with self._lock:
            seen = self._read.get(id(ctx))
        if seen is not None and now - seen[0] < ttl:
            return seen[1]
        version = data_version(session)
        with self._lock:
            self._read[id(ctx)] = (now, version)
        return version


class _Bodies:
    """Built bodies by (context, ETag), least recently used dropped past a byte budget."""

    def __init__(self, budget: int) -> None:
        self._items: OrderedDict[tuple[int, str], Rendered] = OrderedDict()
        self._bytes = 0
        self._budget = budget
        self._lock = threading.Lock()

    def get(self, key: tuple[int, str]) -> Rendered | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: tuple[int, str], rendered: Rendered) -> None:
        if len(rendered.body) > _LARGEST_CACHED_BODY:
            return
        with self._lock:
            if key in self._items:
                return
            self._items[key] = rendered
            self._bytes += len(rendered.body)
            while self._bytes > self._budget:
                _key, dropped = self._items.popitem(last=False)
                self._bytes -= len(dropped.body)


_VERSIONS = _Versions()
_BODIES = _Bodies(_BODY_CACHE_BYTES)


def _etag(request: Request, version: DataVersion, freshness: Freshness) -> str:
    query = "&".join(sorted(f"{k}={v}" for k, v in request.query_params.multi_items()))
    seed = f"{request.url.path}?{query}|{version.token()}|{freshness.extra}"
    return f'W/"{hashlib.blake2b(seed.encode(), digest_size=12).hexdigest()}"'


def _matches(header: str, etag: str) -> bool:
    """If-None-Match's weak comparison with any listed tag. ``*`` is not honoured: it would
    answer 304 for an id that names nothing public, telling a stranger it exists."""
    opaque = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") == opaque for tag in header.split(","))


def _not_modified_since(header: str, last_modified: datetime) -> bool:
    try:
        since = parsedate_to_datetime(header)
    except (TypeError, ValueError, IndexError):
        return False
    if since.tzinfo is None:
        return False
    return last_modified.replace(microsecond=0) <= since


def cache_control(request: Request, public: str) -> str:
    """``public`` for an anonymous request, ``private`` for one that carries a credential."""
    return SIGNED_IN if has_credentials(request) else public


@dataclass(frozen=True)
class _Validators:
    etag: str | None
    last_modified: datetime | None


def _validators(
    ctx: AppContext, request: Request, freshness: Callable[[Session], Freshness]
) -> tuple[_Validators, bool]:
    with ctx.session() as session:
        own = freshness(session)
        version = _VERSIONS.current(ctx, session)
    if own.sealed:
        return _Validators(f'"{own.extra}"', own.last_modified), True
    newest = version.newest
    settle = ctx.settings.api_cache_settle_seconds
    if newest is not None and (utcnow() - newest).total_seconds() < settle:
        return _Validators(None, None), False
    last_modified = newest if own.dated else own.last_modified
    return _Validators(_etag(request, version, own), last_modified), False


def _fresh_headers(validators: _Validators, control: str) -> dict[str, str]:
    headers = {"Cache-Control": control}
    if validators.etag:
        headers["ETag"] = validators.etag
    if validators.last_modified:
        headers["Last-Modified"] = http_date(validators.last_modified)
    return headers


def _unchanged(request: Request, validators: _Validators) -> bool:
    match = request.headers.get("if-none-match")
    if match is not None:
        return validators.etag is not None and _matches(match, validators.etag)
    since = request.headers.get("if-modified-since")
    return (
        since is not None
        and validators.last_modified is not None
        and _not_modified_since(since, validators.last_modified)
    )


def _no_freshness(_session: Session) -> Freshness:
    return Freshness()


async def revalidate(
    ctx: AppContext,
    request: Request,
    public: str,
    freshness: Callable[[Session], Freshness] = _no_freshness,
) -> tuple[Response | None, dict[str, str], str | None]:
    """The 304 when the client's copy is current (else None), the headers the full answer
    carries, and its ETag (None while the data settles)."""
    validators, sealed = await run_in_threadpool(_validators, ctx, request, freshness)
    headers = _fresh_headers(validators, cache_control(request, IMMUTABLE if sealed else public))
    if _unchanged(request, validators):
        return Response(status_code=304, headers=headers), headers, validators.etag
    return None, headers, validators.etag


async def cached_read(
    ctx: AppContext,
    request: Request,
    render: Callable[[], Rendered],
    *,
    public: str = PUBLIC_LIST,
    freshness: Callable[[Session], Freshness] = _no_freshness,
) -> Response:
    """Answer a public GET: 304 when the client's copy is current, else the body (built by
    ``render`` in the thread pool, or taken from the cache) with its validators."""
    not_modified, headers, etag = await revalidate(ctx, request, public, freshness)
    if not_modified is not None:
        return not_modified
    key = (id(ctx), etag or "")
    rendered = _BODIES.get(key) if etag else None
    if rendered is None:
        rendered = await run_in_threadpool(render)
        if etag:
            _BODIES.put(key, rendered)
    return Response(
        rendered.body, media_type=rendered.media_type, headers={**rendered.headers, **headers}
    )


def json_body(value: object, headers: Mapping[str, str] | None = None) -> Rendered:
    """A JSON body as the API writes every other (compact, UTF-8)."""
    return Rendered(bytes(JSONResponse(value).body), "application/json", headers or {})


def next_link(ctx: AppContext, request: Request, cursor: str | None) -> dict[str, str]:
    """``Link: <…>; rel="next"`` for a page with a next cursor: this URL with ``cursor``."""
    if not cursor:
        return {}
    query = [(k, v) for k, v in request.query_params.multi_items() if k != "cursor"]
    url = f"{ctx.settings.app_origin}{request.url.path}?{urlencode([*query, ('cursor', cursor)])}"
    return {"Link": f'<{url}>; rel="next"'}


def versioned_json(request: Request, value: object, public: str) -> Response:
    """For a body that is its own version (small, and read whole anyway: the export pointer,
    the OpenAPI document): a strong ETag over its bytes, and 304 when it matches."""
    body = json_body(value).body
    etag = f'"{hashlib.blake2b(body, digest_size=12).hexdigest()}"'
    headers = {"ETag": etag, "Cache-Control": cache_control(request, public)}
    match = request.headers.get("if-none-match")
    if match is not None and _matches(match, etag):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="application/json", headers=headers)
