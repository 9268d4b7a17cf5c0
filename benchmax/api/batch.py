"""``POST /api/v1/tests/batch`` (one prompt, several setups) and ``POST /api/v1/panel-imports``
(a bench gateway's panel reply read into proposed setups).

A batch is a JSON object: the shared ``prompt`` (and optional ``title`` and ``notes``) and
``setups``, each with the single submission's setup fields, its ``output`` and an optional
``gateway_call_id``. ``benchmax.services.submissions.batch`` makes one Test per setup, each
through the single submission's path, and the answer lists every setup's Test or refusal by
its ``index`` (from 0) and ``line`` (from 1). One ``Idempotency-Key`` covers the whole batch.
Every new setup is one submission against the account's rate.

A panel import stores nothing: it answers the setups a reply proposes, in the batch's field
names, and the seats it skipped with why; the caller adds the prompt and the reasoning and
posts the batch.
"""

from __future__ import annotations

import functools
import json
from dataclasses import asdict
from typing import Any

from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from benchmax.api.errors import name_fields
from benchmax.api.openapi.operations import BATCH_FORM, IDEMPOTENCY_KEY
from benchmax.api.openapi.spec import Answer, Body, Operation, documented
from benchmax.api.submissions import (
    DRAFT_TO_API,
    Caller,
    authenticate,
    idempotency_digest_of,
    status_url,
    take_slot,
)
from benchmax.api.upload_limits import (
    declared_length,
    interrupted,
    request_too_large,
    upload_receive,
)
from benchmax.context import AppContext
from benchmax.services.byte_cap import ByteCap
from benchmax.services.errors import Invalid, RateLimited, ServiceError, Unsupported
from benchmax.services.safety import SafetyLimits
from benchmax.services.submissions.batch import (
    MAX_SETUPS,
    PER_SETUP_FIELDS,
    SHARED_FIELDS,
    Batch,
    SetupOutcome,
    submit_batch,
)
from benchmax.services.submissions.panel import MAX_REPLY_BYTES, read_panel_reply, reply_too_large

BATCH_PATH = "/api/v1/tests/batch"
PANEL_PATH = "/api/v1/panel-imports"
# A batch is read whole into memory: twenty outputs at their longest (500,000 characters) in
# UTF-8, with room for escapes; anything bigger belongs in files on single submissions.
MAX_BATCH_BYTES = 32 * 1024 * 1024
_NAMES = {**DRAFT_TO_API, "gateway_call_id": "gateway_call_id"}
_SHARED_API = {_NAMES[name]: name for name in SHARED_FIELDS}
_SETUP_API = {_NAMES[name]: name for name in PER_SETUP_FIELDS}


class SetupError(BaseModel):
    code: str
    message: str
    field: str | None


class SetupResult(BaseModel):
    index: int = Field(description="The setup's place in the request, from 0.")
    line: int = Field(description="The same place counted from 1, as messages say it.")
    status: str = Field(description="processing (a Test was made) or refused (nothing stored).")
    id: str | None = None
    status_url: str | None = None
    error: SetupError | None = None


class BatchResult(BaseModel):
    setups: list[SetupResult]
    created: int
    refused: int


class ProposedSetupOut(BaseModel):
    position: int = Field(description="The seat's place in the reply, from 1.")
    seat: str
    seconds: float | None
    model: str
    harness: str
    reasoning: str = Field(description="Always empty: the contributor declares it.")
    output: str
    gateway_call_id: str


class SkippedSeatOut(BaseModel):
    position: int
    seat: str
    alias: str
    status: str
    reason: str


class PanelImport(BaseModel):
    panel: str
    collection: str
    setups: list[ProposedSetupOut]
    skipped: list[SkippedSeatOut]


async def _read(request: Request, ctx: AppContext, cap: ByteCap, field: str | None = None) -> bytes:
    """The whole body, counted against ``cap`` before and while it arrives."""
    cap.check_declared(declared_length(request.scope))
    limited = Request(request.scope, upload_receive(request.receive, cap, ctx.settings, field))
    try:
        return b"".join([chunk async for chunk in limited.stream()])
    except ClientDisconnect:
        raise interrupted(field) from None


def _text(value: Any, name: str) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise Invalid("invalid_field", "Send this field as text.", name)
    return str(value)


def _fields(raw: Any, names: dict[str, str], where: str) -> dict[str, str]:
    if not isinstance(raw, dict):
        raise Invalid("invalid_json", f"{where} must be a JSON object.", None)
    unknown = sorted(set(raw) - set(names))
    if unknown:
        raise Invalid("unknown_field", f"Unknown field in {where}: {unknown[0]}.", unknown[0])
    return {names[name]: _text(value, name) for name, value in raw.items()}


def parse_batch(data: bytes) -> Batch:
    """The batch a JSON body asks for, in the draft's field names."""
    try:
        body = json.loads(data)
    except (UnicodeDecodeError, ValueError, RecursionError):
        body = None
    if not isinstance(body, dict):
        raise Invalid("invalid_json", "The request body must be a JSON object.")
    setups = body.pop("setups", None)
    if not isinstance(setups, list):
        raise Invalid("no_setups", "Send setups: a list of objects, one per setup.", "setups")
    if len(setups) > MAX_SETUPS:  # before reading them: a huge list is refused unread
        raise Invalid(
            "too_many_setups",
            f"A batch holds at most {MAX_SETUPS} setups; this one has {len(setups)}.",
            "setups",
        )
    shared = _fields(body, _SHARED_API, "the batch")
    per_setup = [_fields(s, _SETUP_API, f"setup {n}") for n, s in enumerate(setups, start=1)]
    return Batch(shared, per_setup)


def _result(outcome: SetupOutcome, ctx: AppContext) -> dict[str, Any]:
    place = {"index": outcome.index, "line": outcome.line}
    if outcome.refusal is None:
        url = status_url(outcome.test_id, ctx.settings)
        return {**place, "status": "processing", "id": outcome.test_id, "status_url": url}
    refusal = outcome.refusal
    field = _NAMES.get(refusal.field, refusal.field) if refusal.field else None
    error = {"code": refusal.code, "message": refusal.message, "field": field}
    return {**place, "status": "refused", "error": error}


def _slot_taker(ctx: AppContext, caller: Caller) -> Any:
    def take() -> ServiceError | None:
        try:
            take_slot(ctx, caller)
        except RateLimited as refusal:
            return refusal
        return None

    return take


@documented(
    Operation(
        "Submit one prompt with several setups", "submission",
        Answer(202, "One result per setup: its new Test (processing) or why it was refused, "
               "with nothing of it stored.", BatchResult),
        (400, 401, 403, 408, 409, 413, 415),
        extra_answers=(
            Answer(200, "No setup was accepted: why each was refused; nothing stored.",
                   BatchResult),
        ),
        params=(IDEMPOTENCY_KEY,), body=Body(schema=BATCH_FORM), security="token",
        description="Each setup becomes its own Test, checked and scanned on its own, and "
                    "counts as one submission against the account's rate; setups past the "
                    "rate are refused with rate_limited. One Idempotency-Key covers the "
                    "batch: a retry answers with the Tests already made and makes none twice.",
    )
)  # fmt: skip
async def create_batch(ctx: AppContext, limits: SafetyLimits, request: Request) -> Response:
    caller = await run_in_threadpool(authenticate, request, ctx)
    if not request.headers.get("content-type", "").lower().startswith("application/json"):
        raise Unsupported("unsupported_media_type", "Send the batch as application/json.")
    key = idempotency_digest_of(request)
    max_bytes = min(MAX_BATCH_BYTES, ctx.settings.upload_max_request_bytes)
    data = await _read(request, ctx, ByteCap(max_bytes, request_too_large(max_bytes)))
    name_fields(request, _NAMES)
    batch = parse_batch(data)
    outcomes = await run_in_threadpool(
        submit_batch, ctx.jobs, caller.user_id, key, batch, limits, _slot_taker(ctx, caller)
    )
    results = [_result(outcome, ctx) for outcome in outcomes]
    created = sum(1 for r in results if r["status"] == "processing")
    body = {"setups": results, "created": created, "refused": len(results) - created}
    return JSONResponse(
        body, status_code=202 if created else 200, headers={"Cache-Control": "no-store"}
    )


def proposal_json(raw: bytes) -> dict[str, Any]:
    proposal = read_panel_reply(raw)
    setups = [
        {
            "position": setup.position,
            "seat": setup.seat,
            "seconds": setup.seconds,
            **{_NAMES[name]: value for name, value in setup.fields.items()},
        }
        for setup in proposal.setups
    ]
    skipped = [asdict(seat) for seat in proposal.skipped]
    return {
        "panel": proposal.panel,
        "collection": proposal.collection,
        "setups": setups,
        "skipped": skipped,
    }


# The reply's canonical form (the server also finds ``bench`` under ``response`` or ``reply``,
# as a calls-log line holds it): a collection that names the harness, and its seats.
PANEL_REPLY: dict[str, Any] = {
    "type": "object",
    "required": ["bench"],
    "properties": {
        "bench": {
            "type": "object",
            "required": ["collection", "seats"],
            "properties": {
                "panel": {"type": "string"},
                "collection": {
                    "type": "string",
                    "maxLength": 150,
                    "pattern": r"^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*[A-Za-z0-9]"
                    r"[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*$",
                    "description": "Names the harness (Benchwarmers <collection>).",
                },
                "seats": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": MAX_SETUPS,
                    "items": {"type": "object", "additionalProperties": True},
                    "description": "One per model asked; a seat not ok is listed with why.",
                },
            },
        }
    },
}


@documented(
    Operation(
        "Read a panel reply into proposed setups", "submission",
        Answer(200, "One proposed setup per seat whose status is ok and whose fields pass the "
               "checks typed text passes; the other seats with why. Nothing is stored.",
               PanelImport),
        (400, 401, 403, 408, 413),
        body=Body(description="A bench gateway's reply (JSON with a bench field) or one line "
                  "of its calls log.", schema=PANEL_REPLY),
        security="token",
    )
)  # fmt: skip
async def import_panel(ctx: AppContext, request: Request) -> Response:
    await run_in_threadpool(authenticate, request, ctx)
    cap = ByteCap(MAX_REPLY_BYTES, reply_too_large())
    data = await _read(request, ctx, cap, "panel_reply")
    body = await run_in_threadpool(proposal_json, data)
    return JSONResponse(body, headers={"Cache-Control": "no-store"})


def batch_routes(ctx: AppContext, limits: SafetyLimits | None = None) -> list[Route]:
    limits = limits or SafetyLimits()
    return [
        Route(BATCH_PATH, functools.partial(create_batch, ctx, limits), methods=["POST"]),
        Route(PANEL_PATH, functools.partial(import_panel, ctx), methods=["POST"]),
    ]
