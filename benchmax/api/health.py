"""``GET /healthz``: is each dependency reachable? Names only, never configuration values.

Each check is a blocking call (SQL, S3, Redis), so it runs in the thread pool: a slow
dependency must not stall every other request on the event loop.
"""

from __future__ import annotations

import functools

from sqlalchemy import text
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from benchmax.context import AppContext


def _check_database(ctx: AppContext) -> str:
    with ctx.engine.connect() as conn:
        conn.execute(text("SELECT 1"))
    return "ok"


def _check_storage(ctx: AppContext) -> str:
    ctx.storage.check()
    return "ok"


def _check_queue(ctx: AppContext) -> str:
    settings = ctx.settings
    if settings.queue_backend == "memory":
        return "ok (in-process)"
    import redis

    client = redis.Redis.from_url(settings.redis_url, socket_timeout=2)
    try:
        client.ping()
    finally:
        client.close()
    return "ok"


async def healthz(ctx: AppContext, _request: Request) -> JSONResponse:
    checks = {}
    for name, check in (
        ("database", _check_database),
        ("storage", _check_storage),
        ("queue", _check_queue),
    ):
        try:
            checks[name] = await run_in_threadpool(check, ctx)
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
