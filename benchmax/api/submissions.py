"""The submission API: ``POST /api/v1/tests`` and ``GET /api/v1/tests/{id}/status``.

Harnesses and scripts authenticate with ``Authorization: Bearer bmx_...``. A POST is parsed
as it streams: its ``Content-Length`` is checked against the cap before a byte is read, the
body is counted while it arrives, text fields are bounded, and files are spooled to temporary
files rather than memory. The Test is then created with the very service calls the wizard
uses — create_draft, save_draft, add_file, submit — in one transaction, so a refused request
stores nothing (quarantined objects it wrote are deleted again).

``Idempotency-Key`` (unique per contributor, stored only as its SHA-256) makes a retried POST
answer with the first Test; reusing a key for a different request is a 409. Each account — all
its tokens together — may start ``api_submission_rate_limit`` submissions per window; replays of
a stored key are free.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from benchmax.adapters.storage import ObjectStorage
from benchmax.api.auth import bearer_token, token_owner
from benchmax.api.errors import name_fields
from benchmax.api.upload_limits import (
    declared_length,
    interrupted,
    request_too_large,
    upload_receive,
)
from benchmax.context import AppContext
from benchmax.models import Test, User
from benchmax.services import submissions
from benchmax.services.byte_cap import ByteCap
from benchmax.services.errors import (
    Conflict,
    Forbidden,
    Invalid,
    RateLimited,
    Unauthenticated,
    Unsupported,
)
from benchmax.services.safety import SafetyLimits
from benchmax.services.submissions.idempotency import checked_idempotency_digest
from benchmax.services.submissions.quota import take_submission_slot
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
_DRAFT_TO_API = {draft: api for api, draft in API_FIELDS.items()}
FILES_FIELD = "files"
# The longest text field (500,000 characters of output) in UTF-8, with room to spare.
_MAX_TEXT_PART_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class SubmissionApiDeps:
    """What the routes work with, taken from the application context."""

    settings: Settings
    storage: ObjectStorage
    session: Callable[[], AbstractContextManager[Session]]
    limits: SafetyLimits = field(default_factory=SafetyLimits)

    @classmethod
    def from_context(cls, ctx: AppContext, limits: SafetyLimits | None = None) -> SubmissionApiDeps:
        return cls(ctx.settings, ctx.storage, ctx.session, limits or SafetyLimits())


@dataclass(frozen=True)
class _Caller:
    user_id: str
    token_id: str


def _authenticate(request: Request, deps: SubmissionApiDeps, *, writing: bool = True) -> _Caller:
    """The token's account; a suspended one may still read (its own Tests' status) but not
    write."""
    credential = bearer_token(request)
    if not credential:
        raise Unauthenticated(
            "missing_token", "Send an API token: Authorization: Bearer bmx_... (create one on /me)."
        )
    with deps.session() as session:
        token, user = token_owner(session, credential)
        if writing and not user.can_write:
            raise Forbidden("account_suspended", "This account is suspended and cannot submit.")
        return _Caller(user.id, token.id)


def _idempotency_digest(request: Request) -> str | None:
    """The stored form of the request's Idempotency-Key, if it sent one (never the key)."""
    key = request.headers.get("idempotency-key")
    if key is None:
        return None
    return checked_idempotency_digest(key)


@dataclass
class _Body:
    fields: dict[str, str]
    files: list[UploadFile]
    fingerprint: str


async def _read_body(request: Request, deps: SubmissionApiDeps, cap: ByteCap) -> _Body:
    """Parse the multipart body under the size cap; files end up in temporary files."""
    receive = upload_receive(request.receive, cap, deps.settings)
    try:
        form = await Request(request.scope, receive).form(
            max_files=deps.limits.test_max_files + 1,  # one over, so the service says why
            max_fields=len(API_FIELDS) + 1,
            max_part_size=_MAX_TEXT_PART_BYTES,
        )
    except ClientDisconnect:
        raise interrupted() from None
    except HTTPException as error:
        raise Invalid("invalid_multipart", str(error.detail)) from None
    fields: dict[str, str] = {}
    files: list[UploadFile] = []
    try:
        for name, value in form.multi_items():
            if isinstance(value, UploadFile):
                if name != FILES_FIELD:
                    raise _bad_field(name, "Send files in the field named files.")
                files.append(value)
            elif name not in API_FIELDS:
                raise _bad_field(name, f"Unknown field: {name}.")
            elif API_FIELDS[name] in fields:
                raise _bad_field(name, f"The field {name} was sent more than once.")
            else:
                fields[API_FIELDS[name]] = value
        return _Body(fields, files, await run_in_threadpool(_fingerprint, fields, files))
    except BaseException:
        await form.close()
        raise


def _bad_field(name: str, message: str) -> Invalid:
    return Invalid("unknown_field", message, name)


def _fingerprint(fields: dict[str, str], files: list[UploadFile]) -> str:
    """SHA-256 over the request's meaning: its fields and each file's name and bytes."""
    digests = []
    for upload in files:
        digest = hashlib.sha256()
        for chunk in _chunks(upload):
            digest.update(chunk)
        upload.file.seek(0)
        digests.append([upload.filename or "", digest.hexdigest()])
    canonical = json.dumps({"fields": fields, "files": digests}, sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _chunks(upload: UploadFile) -> Iterator[bytes]:
    while chunk := upload.file.read(1024 * 1024):
        yield chunk


def _accepted(test_id: str, settings: Settings) -> JSONResponse:
    status_url = f"{settings.app_origin}/api/v1/tests/{test_id}/status"
    return JSONResponse(
        {"id": test_id, "status": "processing", "status_url": status_url},
        status_code=202,
        headers={"Location": status_url, "Cache-Control": "no-store"},
    )


def _existing(deps: SubmissionApiDeps, user_id: str, key: str) -> tuple[str, str] | None:
    with deps.session() as session:
        row = session.exec(
            select(Test.id, Test.idempotency_fingerprint).where(
                Test.contributor_id == user_id, Test.idempotency_key == key
            )
        ).first()
    return (row[0], row[1]) if row else None


def _replay(deps: SubmissionApiDeps, found: tuple[str, str], fingerprint: str) -> Response:
    test_id, stored = found
    if stored != fingerprint:
        raise Conflict(
            "idempotency_key_reused",
            "This Idempotency-Key was already used for a different submission. Use a new key "
            "for a new Test.",
        )
    return _accepted(test_id, deps.settings)


def _take_slot(deps: SubmissionApiDeps, caller: _Caller) -> None:
    with deps.session() as session:
        wait = take_submission_slot(
            session,
            caller.user_id,
            caller.token_id,
            limit=deps.settings.api_submission_rate_limit,
            window_seconds=deps.settings.api_submission_rate_window_seconds,
        )
    if wait is not None:
        raise RateLimited(
            "rate_limited",
            f"This account has made too many submissions recently; try again in {wait} seconds.",
            retry_after=wait,
        )


def _create(deps: SubmissionApiDeps, caller: _Caller, key: str | None, body: _Body) -> str:
    """Create, fill and submit the Test in one transaction; on refusal nothing is kept."""
    written: list[str] = []
    try:
        with deps.session() as session:
            user = session.get(User, caller.user_id)
            assert user is not None
            test = submissions.create_draft(session, user, deps.settings, submitted_at_once=True)
            test.idempotency_key = key
            test.idempotency_fingerprint = body.fingerprint if key else ""
            session.add(test)
            session.flush()
            submissions.save_draft(session, user, test.id, body.fields, step=5)
            for upload in body.files:
                evidence = submissions.add_file(
                    session,
                    deps.storage,
                    user,
                    test.id,
                    upload.filename or "",
                    upload.file,
                    settings=deps.settings,
                    declared_size=upload.size,
                    limits=deps.limits,
                )
                written.append(evidence.quarantine_key)
            submissions.submit(session, user, test.id)
            return test.id
    except BaseException:
        for object_key in written:
            deps.storage.delete(object_key)
        raise


def submission_routes(ctx: AppContext, limits: SafetyLimits | None = None) -> list[Route]:
    deps = SubmissionApiDeps.from_context(ctx, limits)

    async def create_test(request: Request) -> Response:
        caller = await run_in_threadpool(_authenticate, request, deps)
        content_type = request.headers.get("content-type", "")
        if not content_type.lower().startswith("multipart/form-data"):
            raise Unsupported(
                "unsupported_media_type", "Send the submission as multipart/form-data."
            )
        max_bytes = deps.settings.upload_max_request_bytes
        cap = ByteCap(max_bytes, request_too_large(max_bytes))
        cap.check_declared(declared_length(request.scope))
        key = _idempotency_digest(request)
        found = await run_in_threadpool(_existing, deps, caller.user_id, key) if key else None
        if found is None:
            await run_in_threadpool(_take_slot, deps, caller)
        body = await _read_body(request, deps, cap)
        try:
            if found is not None:
                return _replay(deps, found, body.fingerprint)
            # From here refusals come from the wizard's services, in the draft's field names.
            name_fields(request, _DRAFT_TO_API)
            try:
                test_id = await run_in_threadpool(_create, deps, caller, key, body)
            except IntegrityError:
                # The same key committed by a concurrent retry a moment earlier.
                raced = await run_in_threadpool(_existing, deps, caller.user_id, key or "")
                if raced is None:
                    raise
                return _replay(deps, raced, body.fingerprint)
            return _accepted(test_id, deps.settings)
        finally:
            for upload in body.files:
                await upload.close()

    async def test_status(request: Request) -> Response:
        caller = await run_in_threadpool(
            functools.partial(_authenticate, writing=False), request, deps
        )
        name_fields(request, _DRAFT_TO_API)
        view = await run_in_threadpool(_status, deps, caller, request.path_params["test_id"])
        return JSONResponse(view, headers={"Cache-Control": "no-store"})

    return [
        Route("/api/v1/tests", create_test, methods=["POST"]),
        Route("/api/v1/tests/{test_id}/status", test_status, methods=["GET"]),
    ]


def _status(deps: SubmissionApiDeps, caller: _Caller, test_id: str) -> dict[str, Any]:
    with deps.session() as session:
        user = session.get(User, caller.user_id)
        assert user is not None
        return submissions.processing_status(session, user, test_id).to_json()
