"""Build the OpenAPI 3.1 document by walking the live Starlette routes.

Each route's ``Operation`` comes from its endpoint (``spec.documented``) or from the table in
``operations``; a ``/api/v1`` route with neither raises ``UndocumentedRouteError`` naming it,
so the document is complete by construction. Types become JSON Schema through pydantic's
``TypeAdapter`` with every nested definition moved to ``components/schemas``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import TypeAdapter
from starlette.routing import BaseRoute, Route

from benchmax.api.openapi.operations import PATH_PARAMS, known_operations
from benchmax.api.openapi.spec import Answer, ErrorBody, Operation, Param, operation_of

API_PREFIX = "/api/v1"
_REF = "#/components/schemas/{model}"
_PATH_PARAM = re.compile(r"{([a-z_]+)(?::[a-z]+)?}")
_ERROR_WORDS = {
    400: "The request is malformed or a field is invalid.",
    401: "No credentials, or they are not valid.",
    403: "Signed in, but not allowed (role, suspension, or a cross-site cookie request).",
    404: "Nothing public (or of yours) has this id.",
    405: "The path exists but not with this method.",
    408: "The upload stalled or arrived too slowly.",
    409: "It conflicts with the current state (already decided, key reused, limit reached).",
    413: "The body is larger than allowed.",
    415: "The body is not in the expected format.",
    429: "Too many recently; Retry-After says how long to wait.",
}
_SECURITY: dict[str, list[dict[str, list[str]]]] = {
    "public": [],
    "token": [{"bearer": []}],
    "signed_in": [{"bearer": []}, {"session": []}],
}


def _header(description: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"description": description, "schema": schema or {"type": "string"}}


_CACHE_HEADERS = {
    "ETag": _header(
        "The validator to send back in If-None-Match (absent for a few seconds after a change)."
    ),
    "Cache-Control": _header(
        "public and short for anonymous reads, private when a "
        "credential was sent, immutable for sealed snapshots."
    ),
}
_RATE_HEADERS = {
    "RateLimit": _header('What is left of each limit: "submissions";r=<left>;t=<seconds>.'),
    "RateLimit-Policy": _header('Each limit: "submissions";q=<quota>;w=<window seconds>.'),
}
_LINK = {"Link": _header('<next page URL>; rel="next", when there is a next page.')}
_RETRY_AFTER = {"Retry-After": _header("Seconds to wait before trying again.", {"type": "integer"})}


class UndocumentedRouteError(LookupError):
    """An API route has no ``Operation``; its method and path are the message."""


class _Schemas:
    """Collects component schemas; one name per Python type."""

    def __init__(self) -> None:
        self.components: dict[str, Any] = {}

    def ref(self, model: Any) -> dict[str, Any]:
        schema = TypeAdapter(model).json_schema(ref_template=_REF, mode="serialization")
        self.components.update(schema.pop("$defs", {}))
        name = getattr(model, "__name__", None)
        if name is None:
            return schema
        self.components[name] = schema
        return {"$ref": _REF.format(model=name)}


def api_routes(routes: Iterable[BaseRoute]) -> Iterator[tuple[str, str, object]]:
    """(method, path, endpoint) of every ``/api/v1`` route; HEAD is implied by GET."""
    for route in routes:
        if isinstance(route, Route) and route.path.startswith(API_PREFIX):
            for method in sorted((route.methods or set()) - {"HEAD"}):
                yield method, route.path, route.endpoint


def find_operation(method: str, path: str, endpoint: object) -> Operation:
    operation = operation_of(endpoint) or known_operations().get((method, path))
    if operation is None:
        raise UndocumentedRouteError(f"{method} {path}")
    return operation


def _parameter(param: Param) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": param.name, "in": param.where, "schema": param.schema()}
    if param.description:
        entry["description"] = param.description
    if param.required or param.where == "path":
        entry["required"] = True
    return entry


def _parameters(path: str, operation: Operation) -> list[dict[str, Any]]:
    declared = {param.name: param for param in operation.params}
    in_path = _PATH_PARAM.findall(path)
    for name in in_path:
        if name not in declared:
            if name not in PATH_PARAMS:
                raise UndocumentedRouteError(f"path parameter {name} of {path}")
            declared[name] = PATH_PARAMS[name]
    return [_parameter(param) for param in declared.values()]


def _content(schemas: _Schemas, answer: Answer) -> dict[str, Any]:
    schema = answer.schema if answer.schema is not None else schemas.ref(answer.model)
    return {answer.media_type: {"schema": schema}}


def _success_headers(operation: Operation) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if operation.cached:
        headers |= _CACHE_HEADERS
    if operation.paged:
        headers |= _LINK
    if operation.limited:
        headers |= _RATE_HEADERS
    return headers


def _operation(schemas: _Schemas, method: str, path: str, operation: Operation) -> dict[str, Any]:
    responses: dict[str, Any] = {}
    for answer in (operation.answer, *operation.extra_answers):
        responses[str(answer.status)] = {
            "description": answer.description,
            "content": _content(schemas, answer),
        }
        if headers := _success_headers(operation):
            responses[str(answer.status)]["headers"] = headers
    if operation.cached:
        responses["304"] = {
            "description": "Not modified: the If-None-Match tag is current.",
            "headers": _CACHE_HEADERS,
        }
    error = {"application/json": {"schema": schemas.ref(ErrorBody)}}
    for status in operation.errors:
        responses[str(status)] = {"description": _ERROR_WORDS[status], "content": error}
        if status == 429:
            responses["429"]["headers"] = _RETRY_AFTER | (
                _RATE_HEADERS if operation.limited else {}
            )
    entry: dict[str, Any] = {
        "operationId": _operation_id(method, path),
        "summary": operation.summary,
        "tags": [operation.tag],
        "parameters": _parameters(path, operation),
        "responses": responses,
    }
    if operation.description:
        entry["description"] = operation.description
    if operation.body is not None:
        body = operation.body
        schema = body.schema if body.schema is not None else schemas.ref(body.model)
        entry["requestBody"] = {
            "required": body.required,
            "content": {body.media_type: {"schema": schema}},
        }
    entry["security"] = _SECURITY[operation.security]
    return entry


def _operation_id(method: str, path: str) -> str:
    words = re.sub(r"[{}]", "", path.removeprefix(API_PREFIX)).strip("/").replace("/", "_")
    return f"{method.lower()}_{re.sub(r'[^a-zA-Z0-9_]', '_', words) or 'root'}"


def build_document(routes: Iterable[BaseRoute], server_url: str) -> dict[str, Any]:
    """The OpenAPI 3.1 document of every ``/api/v1`` route in ``routes``."""
    schemas = _Schemas()
    paths: dict[str, dict[str, Any]] = {}
    for method, path, endpoint in api_routes(routes):
        operation = find_operation(method, path, endpoint)
        bare = _PATH_PARAM.sub(r"{\1}", path)
        paths.setdefault(bare, {})[method.lower()] = _operation(schemas, method, path, operation)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "BenchMax API",
            "version": "1",
            "license": {
                "name": "Each Test: its contributor's, under the site's terms",
                "url": f"{server_url}/terms",
            },
            "description": (
                "Read public Tests, submit Tests with an API token, review, report and "
                'moderate. Every error answers {"error": {code, message, field}}. Declared '
                "setups are declared by contributors and not independently verified."
            ),
        },
        "servers": [{"url": server_url}],
        "paths": dict(sorted(paths.items())),
        "components": {
            "schemas": dict(sorted(schemas.components.items())),
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": (
                        "An API token (bmx_…) from /me or `benchmax tokens create`; routes "
                        "that also take a session accept a session token here too."
                    ),
                },
                "session": {
                    "type": "apiKey",
                    "in": "cookie",
                    "name": "__session",
                    "description": (
                        "The browser's sign-in session. A write signed in by this cookie "
                        "alone must come from the app's own origin."
                    ),
                },
            },
        },
    }
