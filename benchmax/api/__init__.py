"""The JSON API and redirect-only compatibility routes, mounted beside Reflex's own app."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.types import ASGIApp

from benchmax.api.batch import batch_routes
from benchmax.api.compat import compat_routes
from benchmax.api.cors import CorsPolicy
from benchmax.api.draft_files import draft_file_routes
from benchmax.api.errors import EXCEPTION_HANDLERS
from benchmax.api.fallback import ApiFallback
from benchmax.api.feeds import feed_routes
from benchmax.api.health import health_routes
from benchmax.api.judges import judge_routes
from benchmax.api.moderation import moderation_routes
from benchmax.api.open_data import open_data_routes
from benchmax.api.openapi.routes import openapi_routes
from benchmax.api.path_guard import PathGuard
from benchmax.api.reviews import review_routes
from benchmax.api.security_headers import SecurityHeadersMiddleware
from benchmax.api.security_txt import security_txt_routes
from benchmax.api.showcase import showcase_routes
from benchmax.api.submissions import submission_routes
from benchmax.api.tests_read import tests_read_routes
from benchmax.context import AppContext
from benchmax.settings import Settings


def build_api(ctx: AppContext) -> Starlette:
    """Every route closes over ``ctx``: the caller decides which database, storage and
    sign-in verifier the API works with."""
    routes = [
        *health_routes(ctx),
        *security_txt_routes(ctx),
        *tests_read_routes(ctx),
        *submission_routes(ctx),
        *batch_routes(ctx),
        *draft_file_routes(ctx),
        *review_routes(ctx),
        *showcase_routes(ctx),
        *moderation_routes(ctx),
        *judge_routes(ctx),
        *compat_routes(ctx.settings),
        *openapi_routes(ctx),
        *open_data_routes(ctx),
        *feed_routes(ctx),
    ]
    return Starlette(
        routes=[*routes, ApiFallback(routes)],
        exception_handlers=EXCEPTION_HANDLERS,
        middleware=[
            Middleware(PathGuard),
            Middleware(CorsPolicy, app_origin=ctx.settings.app_origin),
        ],
    )


def edge(app: ASGIApp, settings: Settings) -> ASGIApp:
    """What every response of the whole app passes last: the security headers, the path
    guard, and the CORS policy (which overrules whatever CORS headers ``app`` set)."""
    return SecurityHeadersMiddleware(PathGuard(CorsPolicy(app, settings.app_origin)), settings)
