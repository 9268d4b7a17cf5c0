"""The OpenAPI document: valid 3.1, and complete — every /api/v1 route of build_api is in it,
found by walking the routes, so a new route without an Operation fails here."""

from __future__ import annotations

import pytest
from openapi_spec_validator import validate
from starlette.routing import BaseRoute, Route

from benchmax.api import build_api
from benchmax.api.openapi.document import (
    UndocumentedRouteError,
    api_routes,
    build_document,
    find_operation,
)
from benchmax.context import AppContext
from benchmax.settings import Settings


@pytest.fixture(scope="module")
def api_routes_list(tmp_path_factory: pytest.TempPathFactory) -> list[BaseRoute]:
    """``build_api``'s routes on a context of its own (nothing here reaches the database)."""
    data_dir = tmp_path_factory.mktemp("openapi-var")
    settings = Settings(_env_file=None, env="test", data_dir=data_dir)
    return build_api(AppContext.from_settings(settings)).routes


@pytest.fixture(scope="module")
def document(api_routes_list: list[BaseRoute]) -> dict:
    return build_document(api_routes_list, "http://localhost:3000")


def test_the_document_is_valid_openapi_3_1(document: dict) -> None:
    assert document["openapi"].startswith("3.1")
    validate(document)


def test_every_api_route_and_method_is_documented(
    document: dict, api_routes_list: list[BaseRoute]
) -> None:
    routes = list(api_routes(api_routes_list))
    assert len(routes) > 20, "the walk found too few routes; it is not looking at build_api"
    for method, path, endpoint in routes:
        find_operation(method, path, endpoint)  # raises for an undocumented route
        bare = path.replace(":path", "")
        assert method.lower() in document["paths"][bare], f"{method} {path} missing"


def test_every_error_answer_is_the_one_error_shape(document: dict) -> None:
    ref = {"$ref": "#/components/schemas/ErrorBody"}
    for methods in document["paths"].values():
        for op in methods.values():
            for status, answer in op["responses"].items():
                if int(status) >= 400:
                    assert answer["content"]["application/json"]["schema"] == ref
    error = document["components"]["schemas"]["ErrorDetail"]
    assert set(error["properties"]) == {"code", "message", "field"}


def test_a_route_without_an_operation_is_refused(api_routes_list: list[BaseRoute]) -> None:
    async def handler(_request: object) -> None:  # pragma: no cover - never called
        return None

    routes = [*api_routes_list, Route("/api/v1/unlisted/{thing_id}", handler)]
    with pytest.raises(UndocumentedRouteError, match="GET /api/v1/unlisted"):
        build_document(routes, "http://localhost:3000")


def test_served_document_and_reference_page(api_client) -> None:
    served = api_client.get("/api/v1/openapi.json")
    assert served.status_code == 200
    validate(served.json())
    page = api_client.get("/api")
    assert page.status_code == 200
    assert "<script" not in page.text
    for path in served.json()["paths"]:
        assert path.replace("{", "").replace("}", "") in page.text.replace("{", "").replace("}", "")
