"""``GET /api/v1/judges/{id}``: a judge snapshot's public card, as on ``/judges/{id}``."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from benchmax import runtime
from benchmax.api.errors import error_response
from benchmax.services.judge.card import JudgeCard, judge_card


def _card(judge_id: str) -> JudgeCard | None:
    with runtime.db_session() as session:
        return judge_card(session, judge_id)


async def get_judge(request: Request) -> JSONResponse:
    card = await run_in_threadpool(_card, request.path_params["judge_id"])
    if card is None:
        return error_response(404, "not_found", "No judge snapshot has this id.")
    return JSONResponse(card.to_json())


def judge_routes() -> list[Route]:
    return [Route("/api/v1/judges/{judge_id}", get_judge, methods=["GET"])]
