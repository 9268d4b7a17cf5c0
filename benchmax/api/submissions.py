"""The submission API: ``POST /api/v1/tests`` and ``GET /api/v1/tests/{id}/status``.

Harnesses and scripts authenticate with ``Authorization: Bearer bmx_...``. A POST is parsed
as it streams: its ``Content-Length`` is checked against the cap before a byte is read, the
body is counted while it arrives, text fields are bounded, and files are spooled to temporary
files rather than memory. The Test is then created in one transaction by
``benchmax.services.submissions.at_once``, with the very service calls the wizard uses, so a
refused request stores nothing.

``Idempotency-Key`` (unique per contributor, stored only as its SHA-256) makes a retried POST
answer with the first Test; reusing a key for a different request is a 409. Each account — all
its tokens together — may make ``api_submission_rate_limit`` submissions per window, counted in
the transaction that creates the Test, so a refused request (400, 413, 415 ...) uses none; those
count against ``api_refusal_rate_limit`` instead. Replays of a stored key are free. Both
allowances are reported in ``RateLimit`` headers.

``status_url`` (and ``Location``) in the 202 answer is readable only with the submitter's token:
a Test is private until it is public.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from benchmax.api import rate_limits
from benchmax.api.auth import bearer_token, token_owner
from benchmax.api.errors import name_fields
from benchmax.api.upload_limits import (
    declared_length,
    interrupted,
    request_too_large,
    upload_receive,
)
from benchmax.context import AppContext
from benchmax.services import submissions
from benchmax.services.accounts import get_user
from benchmax.services.byte_cap import ByteCap
from benchmax.services.errors import (
    Forbidden,
    Invalid,
    ServiceError,
    Unauthenticated,
    Unsupported,
)
from benchmax.services.safety import SafetyLimits
from benchmax.services.submissions import quota
from benchmax.services.submissions.at_once import (
    IncomingFile,
    Submitter,
    WholeSubmission,
    fingerprint,
    submit_at_once,
)
from benchmax.services.submissions.idempotency import (
    PriorSubmission,
    checked_idempotency_digest,
    prior_submission,
    replayed,
)
from benchmax.services.submissions.quota import (
    Allowance,
    Rate,
    record_refusal,
    refuse,
    submission_allowance,
)
from benchmax.settings import Settings

# API field name -> draft field. The API keeps short names (model, harness, output) for scripts.
API_FIELDS = {
    "prompt": "prompt",
    "model": "model_label",
    "model_version": "model_version_label",
    "harness": "harness_label",
    "reasoning": "reasoning_label",
    "output": "output_text",
    "title": "title",
    "settings": "settings_text",
    "attempts": "attempts",
    "notes": "notes",
    "source_visibility": "source_visibility",
}
DRAFT_TO_API = {draft: api for api, draft in API_FIELDS.items()}
FILES_FIELD = "files"
# The longest text field (500,000 characters of output) in UTF-8, with room to spare.
_MAX_TEXT_PART_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class Caller:
    user_id: str
    token_id: str


def authenticate(request: Request, ctx: AppContext, *, writing: bool = True) -> Caller:
    """The token's account; a suspended one may still read (its own Tests' status) but not
    write."""
    credential = bearer_token(request)
    if not credential:
        raise Unauthenticated(
            "missing_token", "Send an API token: Authorization: Bearer bmx_... (create one on /me)."
        )
    with ctx.session() as session:
        token, user = token_owner(session, credential)
        if writing and not user.can_write:
            raise Forbidden("account_suspended", "This account is suspended and cannot submit.")
        return Caller(user.id, token.id)


def idempotency_digest_of(request: Request) -> str | None:
    """The stored form of the request's Idempotency-Key, if it sent one (never the key)."""
    key = request.headers.get("idempotency-key")
    if key is None:
        return None
    return checked_idempotency_digest(key)


@dataclass
class _Body:
    submission: WholeSubmission
    uploads: list[UploadFile]


async def _read_body(
    request: Request, settings: Settings, limits: SafetyLimits, cap: ByteCap
) -> _Body:
    """Parse the multipart body under the size cap; files end up in temporary files."""
    receive = upload_receive(request.receive, cap, settings)
    try:
        form = await Request(request.scope, receive).form(
            max_files=limits.test_max_files + 1,  # one over, so the service says why
            max_fields=len(API_FIELDS) + 1,
            max_part_size=_MAX_TEXT_PART_BYTES,
        )
    except ClientDisconnect:
        raise interrupted() from None
    except HTTPException as error:
        raise Invalid("invalid_multipart", str(error.detail)) from None
    fields: dict[str, str] = {}
    uploads: list[UploadFile] = []
    try:
        for name, value in form.multi_items():
            if isinstance(value, UploadFile):
                if name != FILES_FIELD:
                    raise _bad_field(name, "Send files in the field named files.")
                uploads.append(value)
            elif name not in API_FIELDS:
                raise _bad_field(name, f"Unknown field: {name}.")
            elif API_FIELDS[name] in fields:
                raise _bad_field(name, f"The field {name} was sent more than once.")
            else:
                fields[API_FIELDS[name]] = value
        files = [IncomingFile(u.filename or "", u.file, u.size) for u in uploads]
        digest = await run_in_threadpool(fingerprint, fields, files)
        return _Body(WholeSubmission(fields, files, digest), uploads)
    except BaseException:
        await form.close()
        raise


def _bad_field(name: str, message: str) -> Invalid:
    return Invalid("unknown_field", message, name)


def status_url(test_id: str, settings: Settings) -> str:
    return f"{settings.app_origin}/api/v1/tests/{test_id}/status"


def _accepted(test_id: str, settings: Settings, request: Request) -> JSONResponse:
    url = status_url(test_id, settings)
    return JSONResponse(
        {"id": test_id, "status": "processing", "status_url": url},
        status_code=202,
        headers={
            "Location": url,
            "Cache-Control": "no-store",
            **rate_limits.headers_for(request),
        },
    )


def _prior(ctx: AppContext, caller: Caller, key: str) -> PriorSubmission | None:
    with ctx.session() as session:
        return prior_submission(session, caller.user_id, key)


def rates(settings: Settings) -> tuple[Rate, Rate]:
    """The account's submission rate and its rate of refused submissions."""
    window = settings.api_submission_rate_window_seconds
    return (
        Rate("submissions", settings.api_submission_rate_limit, window),
        Rate("refusals", settings.api_refusal_rate_limit, window),
    )


def take_slot(ctx: AppContext, caller: Caller) -> None:
    """Count one submission against the account's rate in a transaction of its own
    (``RateLimited`` when none is left): the batch route's setups, each before it is made."""
    rate, _refusals = rates(ctx.settings)
    with ctx.session() as session:
        quota.take_slot(session, caller.user_id, caller.token_id, rate)


def _allowance(ctx: AppContext, caller: Caller, rate: Rate, refused: bool) -> Allowance:
    with ctx.session() as session:
        return submission_allowance(session, caller.user_id, rate, refused=refused)


async def _check(ctx: AppContext, request: Request, caller: Caller, rate: Rate) -> None:
    """Refuse before the body is read when ``rate`` is used up; report it either way."""
    allowance = await run_in_threadpool(_allowance, ctx, caller, rate, rate.name == "refusals")
    rate_limits.note(request, allowance)
    if allowance.remaining <= 0:
        raise refuse(allowance)


def _record_refusal(ctx: AppContext, caller: Caller, rate: Rate) -> Allowance:
    with ctx.session() as session:
        return record_refusal(session, caller.user_id, caller.token_id, rate)


def _counts_as_refusal(error: ServiceError) -> bool:
    """A request the API refused for what it said (not for who sent it, nor for a limit)."""
    return 400 <= error.status < 500 and error.status not in (401, 429)


async def _create(
    ctx: AppContext, limits: SafetyLimits, request: Request, caller: Caller, rate: Rate
) -> Response:
    """The submission from its checks to the 202; a refusal raises."""
    content_type = request.headers.get("content-type", "")
    if not content_type.lower().startswith("multipart/form-data"):
        raise Unsupported("unsupported_media_type", "Send the submission as multipart/form-data.")
    max_bytes = ctx.settings.upload_max_request_bytes
    cap = ByteCap(max_bytes, request_too_large(max_bytes))
    cap.check_declared(declared_length(request.scope))
    key = idempotency_digest_of(request)
    prior = await run_in_threadpool(_prior, ctx, caller, key) if key else None
    if prior is None:
        await _check(ctx, request, caller, rate)
    body = await _read_body(request, ctx.settings, limits, cap)
    try:
        if prior is not None:
            test_id = replayed(prior, body.submission.fingerprint)
            return _accepted(test_id, ctx.settings, request)
        # From here refusals come from the wizard's services, in the draft's field names.
        name_fields(request, DRAFT_TO_API)
        submitted = await run_in_threadpool(
            submit_at_once,
            ctx.jobs,
            Submitter(caller.user_id, caller.token_id, rate),
            key,
            body.submission,
            limits,
        )
        if submitted.allowance is not None:
            rate_limits.note(request, submitted.allowance)
        return _accepted(submitted.test_id, ctx.settings, request)
    finally:
        for upload in body.uploads:
            await upload.close()


def submission_routes(ctx: AppContext, limits: SafetyLimits | None = None) -> list[Route]:
    safety = limits or SafetyLimits()

    async def create_test(request: Request) -> Response:
        caller = await run_in_threadpool(authenticate, request, ctx)
        submission_rate, refusal_rate = rates(ctx.settings)
        await _check(ctx, request, caller, refusal_rate)
        try:
            return await _create(ctx, safety, request, caller, submission_rate)
        except ServiceError as error:
            if _counts_as_refusal(error):
                allowance = await run_in_threadpool(_record_refusal, ctx, caller, refusal_rate)
                rate_limits.note(request, allowance)
            raise

    async def test_status(request: Request) -> Response:
        caller = await run_in_threadpool(
            functools.partial(authenticate, writing=False), request, ctx
        )
        name_fields(request, DRAFT_TO_API)
        view = await run_in_threadpool(_status, ctx, caller, request.path_params["test_id"])
        return JSONResponse(view, headers={"Cache-Control": "no-store"})

    return [
        Route("/api/v1/tests", create_test, methods=["POST"]),
        Route("/api/v1/tests/{test_id}/status", test_status, methods=["GET"]),
    ]


def _status(ctx: AppContext, caller: Caller, test_id: str) -> dict[str, Any]:
    with ctx.session() as session:
        user = get_user(session, caller.user_id)
        assert user is not None
        return submissions.processing_status(session, user, test_id).to_json()
