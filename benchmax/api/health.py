"""``GET /healthz``: is each dependency reachable? Names only, never configuration values.

Each check (``benchmax.services.health``) is a blocking call, so it runs in the thread pool:
a slow dependency must not stall every other request on the event loop.
"""

from __future__ import annotations

import functools

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from benchmax.context import AppContext
from benchmax.services.health import check_database, check_queue, check_storage


async def healthz(ctx: AppContext, _request: Request) -> JSONResponse:
    checks = {}
    for name, check in (
        ("database", functools.partial(check_database, ctx.engine)),
        ("storage", functools.partial(check_storage, ctx.storage)),
        ("queue", functools.partial(check_queue, ctx.settings)),
    ):
        try:
            checks[name] = await run_in_threadpool(check)
        except Exception as exc:  # health reports every failure rather than raising
            checks[name] = f"error: {type(exc).__name__}"
    healthy = all(value.startswith("ok") for value in checks.values())
    return JSONResponse(
        {"status": "ok" if healthy else "degraded", "checks": checks},
        status_code=200 if healthy else 503,
        headers={"Cache-Control": "no-store"},
    )


def health_routes(ctx: AppContext) -> list[Route]:
    return [Route("/healthz", functools.partial(healthz, ctx), methods=["GET"])]
