"""The one JSON error shape every API route returns: ``{"error": {code, message, field}}``."""

from __future__ import annotations

from starlette.responses import JSONResponse


def error_response(
    status: int, code: str, message: str, field: str | None = None, **headers: str
) -> JSONResponse:
    return JSONResponse(
        {"error": {"code": code, "message": message, "field": field}},
        status_code=status,
        headers={"Cache-Control": "no-store", **headers},
    )
