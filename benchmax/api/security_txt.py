"""``GET /.well-known/security.txt``: where to report a vulnerability, in RFC 9116's format.

Written from the settings on every request, so ``Expires`` always lies ahead (RFC 9116 asks
for less than a year; a stale file tells scanners the contact may be dead). No database.
"""

from __future__ import annotations

import functools
from datetime import datetime, timedelta

from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from benchmax.context import AppContext
from benchmax.models._base import utcnow
from benchmax.presentation.texts import SECURITY_TXT_PATH as PATH
from benchmax.services.dates import internet_time
from benchmax.settings import Settings

VALID_FOR = timedelta(days=180)


def security_txt(settings: Settings, now: datetime) -> str:
    """The file's fields, one per line (``Canonical`` and ``Policy`` on the app's origin)."""
    origin = settings.app_origin
    return (
        f"Contact: {settings.security_contact}\n"
        f"Expires: {internet_time(now + VALID_FOR)}\n"
        "Preferred-Languages: en\n"
        f"Canonical: {origin}{PATH}\n"
        f"Policy: {origin}/security\n"
    )


async def security_txt_route(ctx: AppContext, _request: Request) -> PlainTextResponse:
    return PlainTextResponse(
        security_txt(ctx.settings, utcnow()),
        media_type="text/plain; charset=utf-8",
        headers={"Cache-Control": "public, max-age=3600"},
    )


def security_txt_routes(ctx: AppContext) -> list[Route]:
    return [Route(PATH, functools.partial(security_txt_route, ctx), methods=["GET"])]
