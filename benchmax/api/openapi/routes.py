"""``/api/v1/openapi.json`` and ``/api``, the reference page rendered from the same document.

The document is built from the app's own routes on first request and kept: routes do not
change while a process runs.
"""

from __future__ import annotations

import functools
import json
from html import escape
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from benchmax.api.html_page import html_page
from benchmax.api.http_cache import versioned_json
from benchmax.api.openapi.document import build_document
from benchmax.api.openapi.showcase_schemas import OpenApiDocument
from benchmax.api.openapi.spec import Answer, Operation, documented
from benchmax.context import AppContext

_cache: dict[int, dict[str, Any]] = {}
_DOCUMENT_CACHE = "public, max-age=300, stale-while-revalidate=3600"


def document_for(request: Request, origin: str) -> dict[str, Any]:
    app = request.app
    if id(app) not in _cache:
        _cache[id(app)] = build_document(app.routes, origin)
    return _cache[id(app)]


@documented(
    Operation(
        "This document", "meta",
        Answer(200, "The OpenAPI 3.1 document of every /api/v1 route.", OpenApiDocument),
        cached=True,
    )
)  # fmt: skip
async def openapi_json(ctx: AppContext, request: Request) -> Response:
    return versioned_json(request, document_for(request, ctx.settings.app_origin), _DOCUMENT_CACHE)


def _schema_text(schema: dict[str, Any]) -> str:
    return escape(json.dumps(schema, ensure_ascii=False))


def _operation_html(method: str, path: str, op: dict[str, Any]) -> str:
    rows = "".join(
        f"<tr><td><code>{escape(p['name'])}</code></td><td>{escape(p['in'])}</td>"
        f"<td>{'yes' if p.get('required') else ''}</td>"
        f"<td>{escape(p.get('description', ''))}</td></tr>"
        for p in op["parameters"]
    )
    params = (
        f"<table><tr><th>parameter</th><th>in</th><th>required</th><th>meaning</th></tr>"
        f"{rows}</table>"
        if rows
        else ""
    )
    body = ""
    if "requestBody" in op:
        (media, content), *_ = op["requestBody"]["content"].items()
        schema = _schema_text(content["schema"])
        body = f"<p>Body: <code>{escape(media)}</code> <code>{schema}</code></p>"
    answers = "".join(
        f"<tr><td>{escape(status)}</td><td>{escape(answer['description'])}</td></tr>"
        for status, answer in op["responses"].items()
    )
    auth = {
        0: "no credentials needed",
        1: "API token required",
        2: "API token or signed-in session; the service decides by role",
    }[len(op["security"])]
    return (
        f'<section class=op id="{escape(op["operationId"])}">'
        f"<p><span class=method>{escape(method.upper())}</span><code>{escape(path)}</code></p>"
        f"<p>{escape(op['summary'])} <span class=note>({escape(auth)})</span></p>"
        f"{params}{body}<table><tr><th>status</th><th>meaning</th></tr>{answers}</table>"
        "</section>"
    )


async def api_reference(ctx: AppContext, request: Request) -> Response:
    document = document_for(request, ctx.settings.app_origin)
    by_tag: dict[str, list[str]] = {}
    for path, methods in document["paths"].items():
        for method, op in methods.items():
            by_tag.setdefault(op["tags"][0], []).append(_operation_html(method, path, op))
    sections = "".join(
        f"<h2>{escape(tag)}</h2>{''.join(ops)}" for tag, ops in sorted(by_tag.items())
    )
    intro = (
        '<p>The machine-readable document is <a href="/api/v1/openapi.json">'
        "/api/v1/openapi.json</a> (OpenAPI 3.1). Errors always answer "
        '<code>{"error": {"code", "message", "field"}}</code>. Declared setups are '
        "<strong>Declared by contributor — not independently verified</strong>.</p>"
    )
    return html_page("API reference", intro + sections)


def openapi_routes(ctx: AppContext) -> list[Route]:
    return [
        Route("/api/v1/openapi.json", functools.partial(openapi_json, ctx), methods=["GET"]),
        Route("/api", functools.partial(api_reference, ctx), methods=["GET"]),
    ]
