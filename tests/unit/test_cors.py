"""CORS as Reflex builds it from our ``rxconfig``: only the app's own origin is granted.

Reflex wraps its own routes, each Starlette ``api_transformer`` (our JSON API) and the outer
app in ``CORSMiddleware`` built from ``cors_allowed_origins``, and hands the same list to the
event socket. This checks that path in process; the browser tests check the served app.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from reflex.app import App
from reflex_base.config import get_config
from sqlalchemy import Engine
from starlette.testclient import TestClient

from benchmax.api import build_api
from benchmax.context import AppContext
from benchmax.settings import Settings, get_settings


@pytest.fixture
def client(settings: Settings, engine: Engine) -> Iterator[TestClient]:
    api = build_api(AppContext.from_settings(settings, engine=engine))
    App._add_cors(api)  # what Reflex does to every Starlette api_transformer
    with TestClient(api) as client:
        yield client


def test_the_config_names_only_the_app_origin() -> None:
    assert tuple(get_config().cors_allowed_origins) == (get_settings().app_origin,)


@pytest.mark.parametrize(
    "origin",
    [
        "http://evil.example",
        "null",
        "http://localhost:1",
        get_settings().app_origin + ".evil.example",
        get_settings().app_origin.replace("http://", "https://"),
        get_settings().app_origin.upper(),
    ],
)
@pytest.mark.parametrize("path", ["/api/v1/tests", "/healthz", "/api/v1/moderation/queues"])
def test_a_foreign_origin_is_never_granted(client: TestClient, origin: str, path: str) -> None:
    preflight = client.options(
        path, headers={"Origin": origin, "Access-Control-Request-Method": "GET"}
    )
    simple = client.get(path, headers={"Origin": origin, "Cookie": "__session=x"})

    assert preflight.status_code == 400
    for response in (preflight, simple):
        assert "access-control-allow-origin" not in response.headers


def test_the_app_origin_is_granted(client: TestClient, settings: Settings) -> None:
    origin = get_settings().app_origin
    assert settings.app_origin == origin
    preflight = client.options(
        "/api/v1/tests", headers={"Origin": origin, "Access-Control-Request-Method": "POST"}
    )
    simple = client.get("/api/v1/tests", headers={"Origin": origin})

    for response in (preflight, simple):
        assert response.headers["access-control-allow-origin"] == origin
