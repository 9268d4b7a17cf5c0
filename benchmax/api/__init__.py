"""The JSON API and redirect-only compatibility routes, mounted beside Reflex's own app."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.routing import Route

from benchmax.api.compat import compat_routes
from benchmax.api.draft_files import draft_file_routes
from benchmax.api.errors import EXCEPTION_HANDLERS
from benchmax.api.fallback import ApiFallback
from benchmax.api.feeds import feed_routes
from benchmax.api.health import healthz
from benchmax.api.judges import judge_routes
from benchmax.api.moderation import moderation_routes
from benchmax.api.open_data import open_data_routes
from benchmax.api.openapi.routes import openapi_routes
from benchmax.api.reviews import review_routes
from benchmax.api.showcase import showcase_routes
from benchmax.api.submissions import submission_routes
from benchmax.api.tests_read import get_test, list_tests


def build_api() -> Starlette:
    routes = [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/api/v1/tests", list_tests, methods=["GET"]),
        Route("/api/v1/tests/{test_id}", get_test, methods=["GET"]),
        *submission_routes(),
        *draft_file_routes(),
        *review_routes(),
        *showcase_routes(),
        *moderation_routes(),
        *judge_routes(),
        *compat_routes(),
        *openapi_routes(),
        *open_data_routes(),
        *feed_routes(),
    ]
    return Starlette(routes=[*routes, ApiFallback(routes)], exception_handlers=EXCEPTION_HANDLERS)
