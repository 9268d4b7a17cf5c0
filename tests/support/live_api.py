"""The JSON API served for real: uvicorn on a free loopback port, in a thread of this process.

For clients that must speak HTTP to it (the contributor client, its CLI, the MCP server in a
subprocess), not through a TestClient. With ``jobs=True`` the web process's job runtime runs
beside it, as embedded ``benchmax dev`` does (``benchmax.lifespan.job_runtime``): submissions
are scanned and published by the real pipeline while the client follows their status.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import uvicorn
from sqlalchemy import and_, func, or_
from sqlmodel import Session, col, select
from starlette.applications import Starlette
from starlette.routing import Mount

from benchmax.api import build_api
from benchmax.context import AppContext
from benchmax.lifespan import job_runtime
from benchmax.models import Job, JobState
from benchmax.models._base import utcnow

START_SECONDS = 30


@contextmanager
def serve_api(ctx: AppContext, *, jobs: bool = False) -> Iterator[str]:
    """The base URL of ``build_api(ctx)`` served until the block ends."""

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        if not jobs:
            yield
            return
        async with job_runtime(ctx):
            yield

    app = Starlette(routes=[Mount("/", build_api(ctx))], lifespan=lifespan)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_config=None, lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + START_SECONDS
    while not server.started:
        assert thread.is_alive(), "uvicorn stopped while starting"
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        if jobs:
            _wait_for_jobs(ctx)
        server.should_exit = True
        thread.join(timeout=START_SECONDS)
        assert not thread.is_alive(), "uvicorn did not stop"
        # An abandoned asyncio task logs a traceback when it is collected. Collected in some
        # later test's ast.parse, Python 3.11's traceback carets re-enter the parser and fail
        # that test with "AST constructor recursion depth mismatch": collect it here instead.
        gc.collect()


def _wait_for_jobs(ctx: AppContext) -> None:
    """Let the jobs already sent finish, so shutting down abandons none mid-run."""
    deadline = time.monotonic() + START_SECONDS
    busy = or_(
        col(Job.state) == JobState.RUNNING,
        and_(col(Job.state) == JobState.PENDING, col(Job.next_attempt_at) <= utcnow()),
    )
    while time.monotonic() < deadline:
        with Session(ctx.engine) as session:
            if not session.exec(select(func.count()).select_from(Job).where(busy)).one():
                return
        time.sleep(0.05)
