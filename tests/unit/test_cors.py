"""CORS as the served app answers it: Reflex wraps our JSON API and the outer app in its own
``CORSMiddleware`` (built from ``rxconfig``'s ``cors_allowed_origins``), and ``api.edge`` wraps
all of that in our policy. Anonymous reads of the API are open to every site, without
credentials; a request that carries a credential, a write, or a page is granted only to the
app's own origin."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from reflex.app import App
from reflex_base.config import get_config
from sqlalchemy import Engine
from starlette.testclient import TestClient

from benchmax.api import build_api, edge
from benchmax.context import AppContext
from benchmax.settings import Settings, get_settings

FOREIGN = [
    "http://evil.example",
    "null",
    "http://localhost:1",
    get_settings().app_origin + ".evil.example",
    get_settings().app_origin.replace("http://", "https://"),
    get_settings().app_origin.upper(),
]


@pytest.fixture
def client(settings: Settings, engine: Engine) -> Iterator[TestClient]:
    api = build_api(AppContext.from_settings(settings, engine=engine))
    App._add_cors(api)  # what Reflex does to every Starlette api_transformer
    with TestClient(edge(api, settings)) as client:
        yield client


def test_the_config_names_only_the_app_origin() -> None:
    assert tuple(get_config().cors_allowed_origins) == (get_settings().app_origin,)


@pytest.mark.parametrize("origin", FOREIGN)
@pytest.mark.parametrize("path", ["/api/v1/tests", "/api/v1/tests/0123456789abcdef"])
def test_an_anonymous_read_is_open_to_every_site_without_credentials(
    client: TestClient, origin: str, path: str
) -> None:
    preflight = client.options(
        path, headers={"Origin": origin, "Access-Control-Request-Method": "GET"}
    )
    simple = client.get(path, headers={"Origin": origin})
    assert preflight.status_code == 204
    for response in (preflight, simple):
        assert response.headers["access-control-allow-origin"] == "*"
        assert "access-control-allow-credentials" not in response.headers
    assert "ETag" in simple.headers["access-control-expose-headers"]


@pytest.mark.parametrize("origin", FOREIGN)
@pytest.mark.parametrize(
    "credential", [{"Cookie": "__session=x"}, {"Authorization": "Bearer bmx_x"}]
)
def test_a_credential_or_a_write_from_another_site_is_never_granted(
    client: TestClient, origin: str, credential: dict[str, str]
) -> None:
    read = client.get("/api/v1/tests", headers={"Origin": origin, **credential})
    write = client.post("/api/v1/tests", headers={"Origin": origin, **credential})
    preflight = client.options(
        "/api/v1/tests", headers={"Origin": origin, "Access-Control-Request-Method": "POST"}
    )
    page = client.get("/healthz", headers={"Origin": origin})
    for response in (read, write, preflight, page):
        assert "access-control-allow-origin" not in response.headers
        assert "access-control-allow-credentials" not in response.headers


def test_the_app_origin_is_granted_with_credentials(client: TestClient, settings: Settings) -> None:
    origin = get_settings().app_origin
    assert settings.app_origin == origin
    preflight = client.options(
        "/api/v1/tests", headers={"Origin": origin, "Access-Control-Request-Method": "POST"}
    )
    simple = client.get("/api/v1/tests", headers={"Origin": origin, "Cookie": "__session=x"})

    for response in (preflight, simple):
        assert response.headers["access-control-allow-origin"] == origin
        assert response.headers["access-control-allow-credentials"] == "true"
