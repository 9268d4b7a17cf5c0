"""``GET /api/v1/judges/{id}``: a judge snapshot's public card, as on ``/judges/{id}``.

The card is read with synchronous SQL, so it runs in the thread pool, off the event loop.
"""

from __future__ import annotations

import functools
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from benchmax.context import AppContext
from benchmax.services.errors import NotFound
from benchmax.services.judge.card import judge_card


def _card(ctx: AppContext, judge_id: str) -> dict[str, Any]:
    with ctx.session() as session:
        card = judge_card(session, judge_id)
        if card is None:
            raise NotFound("not_found", "No judge snapshot has this id.")
        return card.to_json()


async def get_judge(ctx: AppContext, request: Request) -> JSONResponse:
    return JSONResponse(await run_in_threadpool(_card, ctx, request.path_params["judge_id"]))


def judge_routes(ctx: AppContext) -> list[Route]:
    return [Route("/api/v1/judges/{judge_id}", functools.partial(get_judge, ctx), methods=["GET"])]
