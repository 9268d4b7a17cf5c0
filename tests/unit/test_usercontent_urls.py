"""Evidence links from the main app, and its redirect-only compatibility routes."""

from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from benchmax.api.compat import compat_routes
from benchmax.services.evidence_urls import evidence_url, usercontent_origin_problem
from benchmax.settings import CoreSettings


def _settings(**values: str) -> CoreSettings:
    return CoreSettings(_env_file=None, env="test", **values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("origin", "name", "expected"),
    [
        ("https://uc.example", "shot.png", "https://uc.example/e/abc/shot.png"),
        ("https://uc.example/", "a b/c?.png", "https://uc.example/e/abc/a%20b%2Fc%3F.png"),
        ("http://127.0.0.1:3001", "", "http://127.0.0.1:3001/e/abc/file"),
        ("https://uc.example", "名前.txt", "https://uc.example/e/abc/%E5%90%8D%E5%89%8D.txt"),
    ],
)
def test_evidence_url(origin: str, name: str, expected: str) -> None:
    assert evidence_url(origin, "abc", name) == expected


@pytest.mark.parametrize(
    ("app", "content", "problem"),
    [
        ("http://localhost:3000", "http://127.0.0.1:3001", None),
        ("https://benchmax.example", "https://benchmax-usercontent.example", None),
        ("http://localhost:3000", "", "not set"),
        ("http://localhost:3000", "http://localhost:3000", "different host"),
        ("http://localhost:3000", "http://LOCALHOST:3001", "different host"),
        ("https://benchmax.example", "https://files.benchmax.example", "subdomain"),
        ("https://files.benchmax.example", "https://benchmax.example", "subdomain"),
        ("http://localhost:3000", "ftp://127.0.0.1", "scheme and host"),
        ("http://localhost:3000", "http://127.0.0.1:3001/e", "scheme and host"),
        ("http://localhost:3000", "127.0.0.1:3001", "scheme and host"),
    ],
)
def test_usercontent_origin_problem(app: str, content: str, problem: str | None) -> None:
    found = usercontent_origin_problem(_settings(app_origin=app, usercontent_origin=content))

    if problem is None:
        assert found is None
    else:
        assert found is not None
        assert problem in found


def test_production_needs_https() -> None:
    # Production settings refuse to load with http; the check must hold on its own too.
    settings = _settings(
        app_origin="https://benchmax.example", usercontent_origin="http://uc.example"
    ).model_copy(update={"env": "production"})

    assert "https" in (usercontent_origin_problem(settings) or "")


def _client(settings: CoreSettings) -> TestClient:
    return TestClient(Starlette(routes=compat_routes(settings)), follow_redirects=False)


@pytest.mark.parametrize(
    ("path", "location"),
    [
        ("/evidence/abc", "http://127.0.0.1:3001/e/abc/file"),
        ("/evidence/abc/", "http://127.0.0.1:3001/e/abc/file"),
        ("/evidence/abc/shot.png", "http://127.0.0.1:3001/e/abc/shot.png"),
        ("/evidence/abc/a%20b.png", "http://127.0.0.1:3001/e/abc/a%20b.png"),
        ("/evidence/a%3Fb/x", "http://127.0.0.1:3001/e/a%3Fb/x"),
        ("/evidence/abc/..%2F..%2Fadmin", "http://127.0.0.1:3001/e/abc/..%2F..%2Fadmin"),
    ],
)
def test_compat_routes_redirect_to_the_usercontent_origin(path: str, location: str) -> None:
    settings = _settings(app_origin="http://localhost:3000")

    with _client(settings) as client:
        response = client.get(path)
        head = client.head(path)

    assert response.status_code == 307
    assert response.headers["location"] == location
    assert response.headers["cache-control"] == "no-store"
    assert response.content == b""
    assert (head.status_code, head.headers["location"]) == (307, location)


@pytest.mark.parametrize("content", ["", "http://localhost:3001"])
def test_compat_routes_refuse_a_misconfigured_origin(content: str) -> None:
    settings = _settings(app_origin="http://localhost:3000", usercontent_origin=content)

    with _client(settings) as client:
        response = client.get("/evidence/abc/shot.png")

    assert response.status_code == 503
    assert "location" not in response.headers
    assert response.headers["cache-control"] == "no-store"
