"""``GET /api/v1/judges/{id}``: a judge snapshot's public card, as on ``/judges/{id}``.

The card is read with synchronous SQL, so it runs in the thread pool, off the event loop; it
is a public read with validators (``benchmax.api.http_cache``).
"""

from __future__ import annotations

import functools

from sqlmodel import Session
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from benchmax.api.http_cache import PUBLIC_ITEM, Freshness, Rendered, cached_read, json_body
from benchmax.context import AppContext
from benchmax.services.errors import NotFound
from benchmax.services.judge.card import judge_card, judge_state


def _card(ctx: AppContext, judge_id: str) -> Rendered:
    with ctx.session() as session:
        card = judge_card(session, judge_id)
        if card is None:
            raise NotFound("not_found", "No judge snapshot has this id.")
        return json_body(card.to_json())


async def get_judge(ctx: AppContext, request: Request) -> Response:
    judge_id = request.path_params["judge_id"]

    def freshness(session: Session) -> Freshness:
        return Freshness(extra=judge_state(session, judge_id))

    return await cached_read(
        ctx,
        request,
        functools.partial(_card, ctx, judge_id),
        public=PUBLIC_ITEM,
        freshness=freshness,
    )


def judge_routes(ctx: AppContext) -> list[Route]:
    return [Route("/api/v1/judges/{judge_id}", functools.partial(get_judge, ctx), methods=["GET"])]
