"""The one JSON error shape every API route returns: ``{"error": {code, message, field}}``.

Routes and services raise a ``ServiceError``; ``handle_service_error`` (registered in
``build_api`` through ``EXCEPTION_HANDLERS``) is the one place that turns it into an HTTP
status, headers and this body. Any other exception is a bug or a dependency failing, not a
refusal: ``handle_unexpected`` answers it with a 500 in the same shape that says nothing of
the exception (its text can quote content, a path or a secret); the server still logs it.

A route whose clients call a field by another name than the service does (the submission
API's ``model`` for the draft's ``model_label``) says so once with ``name_fields``.
"""

from __future__ import annotations

from collections.abc import Mapping

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from benchmax.api import rate_limits
from benchmax.services.errors import RateLimited, ServiceError

_FIELD_NAMES = "benchmax.error_field_names"
BEARER_CHALLENGE = 'Bearer realm="benchmax"'


def error_response(
    status: int, code: str, message: str, field: str | None = None, **headers: str
) -> JSONResponse:
    return JSONResponse(
        {"error": {"code": code, "message": message, "field": field}},
        status_code=status,
        headers={"Cache-Control": "no-store", **headers},
    )


def name_fields(
    request: Request, names: Mapping[str, str] | None = None, *, default: str | None = None
) -> None:
    """Answer this request's refusals with the route's field names; ``default`` names the
    field of a refusal that names none."""
    request.scope[_FIELD_NAMES] = (names or {}, default)


def service_error_response(error: ServiceError, request: Request | None = None) -> JSONResponse:
    """The refusal as the API answers it: its kind's status, its code, message and field."""
    names, default = request.scope.get(_FIELD_NAMES, ({}, None)) if request else ({}, None)
    headers = rate_limits.headers_for(request) if request else {}
    if isinstance(error, RateLimited):
        headers["Retry-After"] = str(error.retry_after)
    if error.status == 401:
        headers["WWW-Authenticate"] = BEARER_CHALLENGE
    field = names.get(error.field, error.field) if error.field else default
    return error_response(error.status, error.code, error.message, field, **headers)


async def handle_service_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ServiceError)  # registered for ServiceError only
    return service_error_response(exc, request)


async def handle_unexpected(_request: Request, _exc: Exception) -> Response:
    return error_response(
        500, "internal_error", "Something went wrong on our side. Try again later."
    )


EXCEPTION_HANDLERS = {ServiceError: handle_service_error, Exception: handle_unexpected}
