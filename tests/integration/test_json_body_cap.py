"""The JSON action routes' request bodies are held to their cap while they stream."""

from __future__ import annotations

from collections.abc import Iterator

from starlette.testclient import TestClient

from benchmax.api.actions import MAX_BODY_BYTES


def test_json_bodies_are_capped_while_they_stream(api_client: TestClient) -> None:
    """The JSON routes count with the same ``ByteCap`` as uploads: 413, the usual shape."""
    path = "/api/v1/tests/hmf5ygmcrchq8cgc/reports"
    oversized = b'{"reason": "' + b"a" * MAX_BODY_BYTES + b'"}'

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        for start in range(0, len(oversized), 4096):
            yield oversized[start : start + 4096]

    response = api_client.post(path, content=chunks(), headers={"Content-Type": "application/json"})
    assert response.status_code == 413
    assert response.json() == {
        "error": {
            "code": "body_too_large",
            "message": "The request body is too large.",
            "field": None,
        }
    }
