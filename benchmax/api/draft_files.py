"""``POST /api/v1/tests/{id}/files``: one evidence file per request, for the wizard.

One file per request is what lets the browser show a progress bar per file. The body is the
file's raw bytes (its name in ``X-Filename``, percent-encoded), so nothing is parsed: the
stream is counted against the cap while it is spooled to a temporary file, then handed to
the same ``submissions.add_file`` the JSON API and the pipeline use.

The browser names each upload with a random ``X-Upload-Key``. Its Cancel button aborts the
request and then sends ``DELETE`` for that key: the abort alone cannot promise "not added",
because every byte may already have arrived and the file be storing when the click lands.

Everything that can refuse the upload without its bytes is decided before a byte is read:
the caller, the Test (it exists, is theirs and is editable) and the account's upload rate.
The body itself must keep to the upload timeout; a client that stalls or trickles is cut off
with 408, and one that goes away mid-body gets a quiet 400 nobody reads.
"""

from __future__ import annotations

import functools
import tempfile
from dataclasses import dataclass, replace
from typing import IO
from urllib.parse import unquote

from sqlmodel import Session
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from benchmax.api import rate_limits
from benchmax.api.auth import request_user
from benchmax.api.errors import name_fields
from benchmax.api.upload_limits import (
    declared_length,
    interrupted,
    upload_receive,
)
from benchmax.context import AppContext
from benchmax.models import User
from benchmax.services import accounts, submissions
from benchmax.services.byte_cap import ByteCap
from benchmax.services.errors import Invalid, NotFound, TooLarge, Unauthenticated
from benchmax.services.safety import SafetyLimits
from benchmax.services.submissions.files import FILES_FIELD, largest_file_bytes
from benchmax.services.submissions.quota import Allowance, Rate, refuse, upload_allowance
from benchmax.services.submissions.records import editable_test
from benchmax.settings import Settings

SPOOL_IN_MEMORY_BYTES = 1024 * 1024


async def _spool(ctx: AppContext, request: Request, cap: ByteCap) -> IO[bytes]:
    """The body in a temporary file; raises as ``LimitedReceive`` does (size, time)."""
    limited = upload_receive(request.receive, cap, ctx.settings, FILES_FIELD)
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY_BYTES)  # noqa: SIM115
    try:
        async for chunk in Request(request.scope, limited).stream():
            spool.write(chunk)
    except BaseException:
        spool.close()
        raise
    spool.seek(0)
    return spool


def upload_rate(settings: Settings) -> Rate:
    return Rate("uploads", settings.upload_rate_limit, settings.upload_rate_window_seconds)


def _upload_allowance(ctx: AppContext, user: User, test_id: str) -> Allowance:
    """Refuse, before the body is read, what the bytes could not change: a Test that is
    missing, someone else's or not editable (``ServiceError``). Answers the account's upload
    allowance."""
    with ctx.session() as session:
        editable_test(session, user, test_id)
        return upload_allowance(session, user.id, upload_rate(ctx.settings))


@dataclass(frozen=True)
class _Upload:
    name: str
    body: IO[bytes]
    size: int
    key: str


def _account(session: Session, user_id: str) -> User:
    user = accounts.get_user(session, user_id)
    if user is None:
        raise NotFound("not_found", "No such account.")
    return user


def _add(ctx: AppContext, user_id: str, test_id: str, upload: _Upload) -> dict[str, str]:
    with ctx.session() as session:
        evidence = submissions.add_file(
            session,
            ctx.storage,
            _account(session, user_id),
            test_id,
            upload.name,
            upload.body,
            settings=ctx.settings,
            declared_size=upload.size,
            upload_key=upload.key,
        )
        return {"id": evidence.id, "name": evidence.safe_name, "state": str(evidence.state)}


def _cancel(ctx: AppContext, user_id: str, test_id: str, upload_key: str) -> None:
    with ctx.session() as session:
        submissions.cancel_upload(
            session, ctx.storage, _account(session, user_id), test_id, upload_key
        )


def _too_large(name: str, cap: int) -> TooLarge:
    return TooLarge(
        "file_too_large", f"“{name[:80]}” is larger than {cap // (1024 * 1024)} MiB.", "files"
    )


def _caller(ctx: AppContext, request: Request) -> User | None:
    with ctx.session() as session:
        return request_user(ctx, request, session)


async def upload_draft_file(ctx: AppContext, request: Request) -> Response:
    test_id = request.path_params["test_id"]
    user = await run_in_threadpool(_caller, ctx, request)
    if user is None:
        raise Unauthenticated("sign_in_required", "Sign in to upload files.")
    name_fields(request, default="files")  # past sign-in, every refusal is about the file
    name = unquote(request.headers.get("x-filename", "")).strip()
    if not name:
        raise Invalid("filename_missing", "The file has no name.", "files")
    upload_key = submissions.checked_upload_key(request.headers.get("x-upload-key", "").strip())
    max_bytes = largest_file_bytes(SafetyLimits())
    cap = ByteCap(max_bytes, _too_large(name, max_bytes))
    cap.check_declared(declared_length(request.scope))
    allowance = await run_in_threadpool(_upload_allowance, ctx, user, test_id)
    rate_limits.note(request, allowance)
    if allowance.remaining <= 0:
        raise refuse(allowance, "files")
    try:
        body = await _spool(ctx, request, cap)
    except ClientDisconnect:
        raise interrupted(FILES_FIELD) from None
    try:
        size = body.seek(0, 2)
        body.seek(0)
        result = await run_in_threadpool(
            _add, ctx, user.id, test_id, _Upload(name, body, size, upload_key)
        )
    finally:
        body.close()
    rate_limits.note(request, replace(allowance, remaining=allowance.remaining - 1))
    return JSONResponse(
        result,
        status_code=201,
        headers={"Cache-Control": "no-store", **rate_limits.headers_for(request)},
    )


async def cancel_draft_upload(ctx: AppContext, request: Request) -> Response:
    """Cancel one upload by its key; answers the same whether or not its file was stored."""
    user = await run_in_threadpool(_caller, ctx, request)
    if user is None:
        raise Unauthenticated("sign_in_required", "Sign in to cancel an upload.")
    name_fields(request, default="files")
    upload_key = submissions.checked_upload_key(request.path_params["upload_key"])
    test_id = request.path_params["test_id"]
    await run_in_threadpool(_cancel, ctx, user.id, test_id, upload_key)
    return JSONResponse(
        {"upload_key": upload_key, "cancelled": True}, headers={"Cache-Control": "no-store"}
    )


def draft_file_routes(ctx: AppContext) -> list[Route]:
    upload = functools.partial(upload_draft_file, ctx)
    cancel = functools.partial(cancel_draft_upload, ctx)
    return [
        Route("/api/v1/tests/{test_id}/files", upload, methods=["POST"]),
        Route("/api/v1/tests/{test_id}/uploads/{upload_key}", cancel, methods=["DELETE"]),
    ]
