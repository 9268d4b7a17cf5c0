"""The JSON API and redirect-only compatibility routes, mounted beside Reflex's own app."""

from __future__ import annotations

from starlette.applications import Starlette

from benchmax.api.batch import batch_routes
from benchmax.api.compat import compat_routes
from benchmax.api.draft_files import draft_file_routes
from benchmax.api.errors import EXCEPTION_HANDLERS
from benchmax.api.fallback import ApiFallback
from benchmax.api.feeds import feed_routes
from benchmax.api.health import health_routes
from benchmax.api.judges import judge_routes
from benchmax.api.moderation import moderation_routes
from benchmax.api.open_data import open_data_routes
from benchmax.api.openapi.routes import openapi_routes
from benchmax.api.reviews import review_routes
from benchmax.api.security_txt import security_txt_routes
from benchmax.api.showcase import showcase_routes
from benchmax.api.submissions import submission_routes
from benchmax.api.tests_read import tests_read_routes
from benchmax.context import AppContext


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
    return Starlette(routes=[*routes, ApiFallback(routes)], exception_handlers=EXCEPTION_HANDLERS)
