"""``POST /api/v1/tests/{id}/files``: one evidence file per request, for the wizard.

One file per request is what lets the browser show a progress bar per file. The body is the
file's raw bytes (its name in ``X-Filename``, percent-encoded), so nothing is parsed: the
stream is counted against the cap while it is spooled to a temporary file, then handed to
the same ``submissions.add_file`` the JSON API and the pipeline use.
"""

from __future__ import annotations

import tempfile
from typing import IO
from urllib.parse import unquote

from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from benchmax import runtime
from benchmax.api.auth import ApiAuthError, request_user
from benchmax.api.errors import error_response
from benchmax.api.upload_limits import declared_length
from benchmax.services import accounts, submissions
from benchmax.services.safety import SafetyLimits
from benchmax.services.submissions.files import largest_file_bytes

SPOOL_IN_MEMORY_BYTES = 1024 * 1024


async def _spool(request: Request, cap: int) -> IO[bytes] | None:
    """The body in a temporary file, or None when it grows past ``cap``."""
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY_BYTES)  # noqa: SIM115
    received = 0
    async for chunk in request.stream():
        received += len(chunk)
        if received > cap:
            spool.close()
            return None
        spool.write(chunk)
    spool.seek(0)
    return spool


def _add(user_id: str, test_id: str, name: str, body: IO[bytes], size: int) -> dict[str, str]:
    with runtime.db_session() as session:
        user = accounts.get_user(session, user_id)
        if user is None:
            raise submissions.SubmissionError("not_found", "No such account.", status=404)
        evidence = submissions.add_file(
            session, runtime.storage(), user, test_id, name, body, declared_size=size
        )
        return {"id": evidence.id, "name": evidence.safe_name, "state": str(evidence.state)}


def _too_large(name: str, cap: int) -> Response:
    return error_response(
        413, "file_too_large", f"“{name[:80]}” is larger than {cap // (1024 * 1024)} MiB.", "files"
    )


async def upload_draft_file(request: Request) -> Response:
    test_id = request.path_params["test_id"]
    try:
        with runtime.db_session() as session:
            user = request_user(request, session)
            user_id = user.id if user else None
    except ApiAuthError as error:
        return error_response(error.status, error.code, error.message)
    if user_id is None:
        return error_response(401, "sign_in_required", "Sign in to upload files.")
    name = unquote(request.headers.get("x-filename", "")).strip()
    if not name:
        return error_response(400, "filename_missing", "The file has no name.", "files")
    cap = largest_file_bytes(SafetyLimits())
    length = declared_length(request.scope)
    if length is not None and length > cap:
        return _too_large(name, cap)
    try:
        body = await _spool(request, cap)
    except ClientDisconnect:
        return error_response(400, "upload_interrupted", "The upload was interrupted.", "files")
    if body is None:
        return _too_large(name, cap)
    try:
        size = body.seek(0, 2)
        body.seek(0)
        result = await run_in_threadpool(_add, user_id, test_id, name, body, size)
    except submissions.SubmissionError as error:
        return error_response(error.status, error.code, error.message, error.field or "files")
    finally:
        body.close()
    return JSONResponse(result, status_code=201, headers={"Cache-Control": "no-store"})


def draft_file_routes() -> list[Route]:
    return [Route("/api/v1/tests/{test_id}/files", upload_draft_file, methods=["POST"])]
