"""The Starlette application: ``/e/{evidence_id}/{name}``, ``/exports/{name}``, preview
artifacts at ``/p/{artifact_id}/{name}`` and ``/healthz``.

Blocking work (the database, storage calls and each chunk read) runs in the thread pool, so
one slow object store never stalls other requests.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial

from sqlalchemy import Engine, text
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from benchmax.adapters.storage import ObjectStorage, build_storage
from benchmax.db import make_engine
from benchmax.models import EvidenceKind
from benchmax.settings import CoreSettings
from usercontent_service.access import ServableFile, find_servable
from usercontent_service.exports import find_export_file
from usercontent_service.headers import (
    SecurityHeadersMiddleware,
    content_disposition,
    download_name,
    served_content_type,
)
from usercontent_service.previews import find_preview_artifact
from usercontent_service.sending import StoredObject, send_object

logger = logging.getLogger(__name__)

NOT_FOUND_BODY = b"Not found\n"


def not_found() -> Response:
    """The one refusal: identical whatever the reason."""
    return Response(
        NOT_FOUND_BODY,
        status_code=404,
        media_type="text/plain",
        headers={"Cache-Control": "no-store"},
    )


class EvidenceEndpoint:
    """Authorises, then streams; every failure before the first byte becomes ``not_found``."""

    def __init__(self, engine: Engine, storage: ObjectStorage, app_origin: str) -> None:
        self.engine = engine
        self.storage = storage
        self.app_origin = app_origin

    async def serve(self, request: Request) -> Response:
        evidence_id = request.path_params["evidence_id"]
        try:
            found = await run_in_threadpool(find_servable, self.engine, self.storage, evidence_id)
            return await self._respond(request, found) if found else not_found()
        except Exception as error:
            # A broken database or store must look like any other refusal. Log ids and error
            # classes only: never names, keys or content.
            logger.warning("evidence %s refused after %s", evidence_id, type(error).__name__)
            return not_found()

    async def _respond(self, request: Request, found: ServableFile) -> Response:
        served_type = served_content_type(found.kind, found.content_type)
        filename = download_name(found.kind, served_type, found.safe_name, found.evidence_id)
        stored = StoredObject(
            found.storage_key,
            found.size,
            found.sha256,
            served_type,
            content_disposition(served_type, filename),
        )
        response = await send_object(request, self.storage, stored)
        if found.kind == EvidenceKind.TEXT:
            # The Test page reads the first part of a text file inline with fetch(): only the
            # app's own origin may, and without credentials (this origin has no cookies).
            # Refusals carry no such header, so they stay as opaque as ever.
            response.headers["Access-Control-Allow-Origin"] = self.app_origin
            response.headers["Vary"] = "Origin"
        return response


class LookupEndpoint:
    """Serves what ``find`` returns for one path parameter; ``None`` or any error is the 404.

    The published open-data export's files and automated preview artifacts use it; each
    finder holds its own rules.
    """

    def __init__(
        self,
        storage: ObjectStorage,
        find: Callable[[str], StoredObject | None],
        param: str,
        what: str,
    ) -> None:
        self.storage = storage
        self.find = find
        self.param = param
        self.what = what

    async def serve(self, request: Request) -> Response:
        try:
            stored = await run_in_threadpool(self.find, request.path_params[self.param])
            return await send_object(request, self.storage, stored) if stored else not_found()
        except Exception as error:
            logger.warning("%s refused after %s", self.what, type(error).__name__)
            return not_found()


def _health(engine: Engine, storage: ObjectStorage) -> None:
    with engine.connect() as connection:
        connection.execute(text("SELECT 1"))
    storage.check()


def create_app(
    settings: CoreSettings, engine: Engine | None = None, storage: ObjectStorage | None = None
) -> ASGIApp:
    """The service for ``settings``; tests pass their own engine and storage."""
    engine = engine or make_engine(settings.resolved_database_url)
    storage = storage or build_storage(settings)

    async def healthz(_request: Request) -> Response:
        try:
            await run_in_threadpool(_health, engine, storage)
        except Exception as error:
            logger.warning("health check failed: %s", type(error).__name__)
            return JSONResponse({"status": "unavailable"}, 503, {"Cache-Control": "no-store"})
        return JSONResponse({"status": "ok"}, headers={"Cache-Control": "no-store"})

    async def refuse(_request: Request, _error: Exception) -> Response:
        return not_found()

    evidence = EvidenceEndpoint(engine, storage, settings.app_origin.rstrip("/"))
    exports = LookupEndpoint(storage, partial(find_export_file, storage), "name", "export file")
    previews = LookupEndpoint(
        storage, partial(find_preview_artifact, engine, storage), "artifact_id", "preview artifact"
    )
    # Every refusal is the one 404: a wrong method too (a 405 would tell a path exists), and
    # no redirect — Starlette's trailing-slash redirect builds its Location from the Host
    # header, so it would echo whatever host a request claims.
    starlette = Starlette(
        routes=[
            Route("/e/{evidence_id}/{name:path}", evidence.serve, methods=["GET", "HEAD"]),
            Route("/exports/{name}", exports.serve, methods=["GET", "HEAD"]),
            Route("/p/{artifact_id}/{name}", previews.serve, methods=["GET", "HEAD"]),
            Route("/healthz", healthz, methods=["GET", "HEAD"]),
        ],
        exception_handlers={404: refuse, 405: refuse, Exception: refuse},
    )
    starlette.router.redirect_slashes = False
    return SecurityHeadersMiddleware(starlette, settings.app_origin)
