"""Run one service call per request: read the JSON body, find the caller, commit or roll
back. A refusal is a ``ServiceError``, answered by the handler in ``benchmax.api.errors``.

Service functions are synchronous (SQL), so they run in the thread pool rather than on the
event loop.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from sqlmodel import Session
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from benchmax.api.auth import request_user
from benchmax.api.upload_limits import LimitedReceive
from benchmax.context import AppContext
from benchmax.models import ModerationDecision, User
from benchmax.models._base import as_utc
from benchmax.services.byte_cap import ByteCap
from benchmax.services.errors import Invalid, TooLarge

MAX_BODY_BYTES = 64 * 1024  # the longest field (review reasoning) is 5,000 characters

# (session, caller, path parameters, JSON body) -> JSON-ready result
Action = Callable[[Session, User | None, dict[str, Any], dict[str, Any]], dict[str, Any]]


async def _json_body(request: Request) -> dict[str, Any]:
    if request.method in ("GET", "HEAD"):
        return {}
    cap = ByteCap(MAX_BODY_BYTES, TooLarge("body_too_large", "The request body is too large."))
    limited = Request(request.scope, LimitedReceive(request.receive, cap))
    data = b"".join([chunk async for chunk in limited.stream()])
    try:
        body = json.loads(data or b"{}")
    except (UnicodeDecodeError, json.JSONDecodeError):
        body = None
    if not isinstance(body, dict):
        raise Invalid("invalid_json", "The request body must be a JSON object.")
    return body


def _run(ctx: AppContext, action: Action, request: Request, body: dict[str, Any]) -> dict[str, Any]:
    with ctx.session() as session:
        return action(session, request_user(ctx, request, session), dict(request.path_params), body)


def endpoint(
    ctx: AppContext, action: Action, status: int = 200
) -> Callable[[Request], Awaitable[Response]]:
    """A Starlette endpoint on ``ctx`` answering ``status`` with the action's result."""

    async def handle(request: Request) -> Response:
        body = await _json_body(request)
        result = await run_in_threadpool(_run, ctx, action, request, body)
        return JSONResponse(result, status_code=status, headers={"Cache-Control": "no-store"})

    return handle


def text(body: dict[str, Any], name: str) -> str:
    """A string field of the body; anything else reads as empty and fails validation."""
    value = body.get(name, "")
    return value if isinstance(value, str) else ""


def optional_id(body: dict[str, Any], name: str) -> str | None:
    value = body.get(name)
    return value if isinstance(value, str) and value else None


def decision_json(decision: ModerationDecision) -> dict[str, Any]:
    return {
        "decision": {
            "id": decision.id,
            "action": decision.action,
            "target_type": decision.target_type,
            "target_id": decision.target_id,
            "previous_state": decision.previous_state,
            "next_state": decision.next_state,
            "created_at": as_utc(decision.created_at).isoformat(),
        }
    }
