"""``GET /api/v1/exports`` and ``/data``: what the current open-data export holds and where.

The app reads only the small pointer object that names the export; the files themselves
are downloaded from the user-content origin (``/exports/<name>``), which serves only what
that pointer lists.
"""

from __future__ import annotations

import functools
from html import escape
from typing import Any

from pydantic import BaseModel, dataclasses
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from benchmax.api.html_page import html_page
from benchmax.api.http_cache import PUBLIC_ITEM, versioned_json
from benchmax.api.openapi.spec import Answer, Operation, documented
from benchmax.context import AppContext
from benchmax.services.exports import ExportFile, Manifest, read_current


@dataclasses.dataclass(frozen=True)
class ExportFileLink(ExportFile):
    """A file the pointer lists, plus where the user-content origin serves it."""

    url: str


class ExportListing(BaseModel):
    """The published export, or ``current: null`` before the first one."""

    current: dict[str, Any] | None
    files: list[ExportFileLink]
    manifest_url: str | None


def _listing(manifest: Manifest | None, origin: str) -> ExportListing:
    if manifest is None:
        return ExportListing(current=None, files=[], manifest_url=None)
    body = manifest.to_json()
    body.pop("files")
    files = [
        ExportFileLink(**vars(file), url=f"{origin}/exports/{file.name}") for file in manifest.files
    ]
    return ExportListing(current=body, files=files, manifest_url=f"{origin}/exports/manifest.json")


def _current(ctx: AppContext) -> ExportListing:
    return _listing(read_current(ctx.storage), ctx.settings.usercontent_origin)


@documented(
    Operation(
        "The current open-data export", "open data",
        Answer(200, "Its manifest and a download URL (user-content origin) per file.",
               ExportListing),
        cached=True,
    )
)  # fmt: skip
async def list_exports(ctx: AppContext, request: Request) -> Response:
    # The pointer object is the export's version: small, and read whole to list the files.
    listing = await run_in_threadpool(_current, ctx)
    return versioned_json(request, listing.model_dump(mode="json"), PUBLIC_ITEM)


def _size(count: int) -> str:
    return f"{count / 1024 / 1024:.1f} MiB" if count >= 1024 * 1024 else f"{count:,} bytes"


async def data_page(ctx: AppContext, _request: Request) -> Response:
    listing = await run_in_threadpool(_current, ctx)
    intro = (
        "<p>Every public Test on BenchMax — prompt, declared setup, output, evidence "
        "metadata with its public URL, and the full review history — as JSON Lines and CSV, "
        "regenerated on a schedule. Removed Tests, blocked files and private sources are "
        "never included. Setups are <strong>Declared by contributor — not independently "
        'verified</strong>. The same list is at <a href="/api/v1/exports">/api/v1/exports'
        "</a>.</p>"
    )
    if listing.current is None:
        return html_page("Open data", intro + "<p>No export has been published yet.</p>")
    rows = "".join(
        f'<tr><td><a href="{escape(file.url)}" download>{escape(file.name)}</a></td>'
        f"<td>{file.rows:,}</td><td>{_size(file.bytes)}</td><td><code>{file.sha256}</code></td></tr>"
        for file in listing.files
    )
    current = listing.current
    body = (
        f"{intro}<p>Generated {escape(str(current['generated_at']))} · "
        f'<a href="{escape(listing.manifest_url or "")}">manifest.json</a> (counts and '
        f"SHA-256 of every file)</p><p class=note>{escape(str(current['licence']))} "
        f'<a href="{escape(str(current["terms_url"]))}">Terms</a></p>'
        "<table><tr><th>file</th><th>rows</th><th>size</th><th>SHA-256</th></tr>"
        f"{rows}</table>"
    )
    return html_page("Open data", body)


def open_data_routes(ctx: AppContext) -> list[Route]:
    return [
        Route("/api/v1/exports", functools.partial(list_exports, ctx), methods=["GET"]),
        Route("/data", functools.partial(data_page, ctx), methods=["GET"]),
    ]
