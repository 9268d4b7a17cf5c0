"""Unknown API paths and methods answer in the API's JSON error shape, never the app's HTML."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient


@pytest.mark.parametrize(
    "path",
    ["/api/v1/nope", "/api/v1/", "/api/v1/tests/abc/nothing/here", "/api/v1/%00", "/api/v1/..%2f"],
)
@pytest.mark.parametrize("method", ["GET", "POST", "DELETE"])
def test_unknown_paths_are_json_404(api_client: TestClient, path: str, method: str) -> None:
    response = api_client.request(method, path)
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/json"
    assert response.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("PUT", "/api/v1/tests", "GET, HEAD, POST"),
        ("DELETE", "/api/v1/tests/abcdefghjkmnpqrs", "GET, HEAD"),
        ("POST", "/api/v1/tests/abcdefghjkmnpqrs/status", "GET, HEAD"),
    ],
)
def test_wrong_methods_are_json_405(
    api_client: TestClient, method: str, path: str, allowed: str
) -> None:
    response = api_client.request(method, path)
    assert response.status_code == 405
    assert response.headers["allow"] == allowed
    assert response.json()["error"] == {
        "code": "method_not_allowed",
        "message": f"{method} is not allowed here.",
        "field": None,
    }


def test_known_routes_still_answer(api_client: TestClient) -> None:
    assert api_client.get("/api/v1/tests").status_code == 200
    assert api_client.get("/healthz").status_code in (200, 503)
