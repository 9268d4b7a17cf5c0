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


def _resolve(document: dict, schema: dict) -> dict:
    ref = schema.get("$ref")
    return document["components"]["schemas"][ref.rsplit("/", 1)[1]] if ref else schema


def test_every_answer_has_a_real_schema(document: dict) -> None:
    for path, methods in document["paths"].items():
        for method, op in methods.items():
            for status, answer in op["responses"].items():
                for media in answer.get("content", {}).values():
                    schema = _resolve(document, media["schema"])
                    assert schema != {"type": "object"}, f"{method} {path} {status}"
                    if schema.get("type") == "object":
                        assert schema.get("properties"), f"{method} {path} {status}"


def test_security_says_what_each_route_needs(document: dict) -> None:
    schemes = document["components"]["securitySchemes"]
    assert schemes["session"] == {**schemes["session"], "type": "apiKey", "in": "cookie"}
    for path, methods in document["paths"].items():
        for method, op in methods.items():
            security = op["security"]
            assert {} not in security, f"{method} {path}: anonymous is never an alternative"
            if method == "get" and "/status" not in path and "/moderation/" not in path:
                assert security == [], f"{method} {path} is a public read"
    submit = document["paths"]["/api/v1/tests"]["post"]
    assert submit["security"] == [{"bearer": []}]
    assert "submitter's token" in submit["description"]
    queues = document["paths"]["/api/v1/moderation/queues"]["get"]
    assert queues["security"] == [{"bearer": []}, {"session": []}]


def test_parameters_are_typed_and_bounded_as_the_server_enforces(document: dict) -> None:
    listing = {
        p["name"]: p["schema"] for p in document["paths"]["/api/v1/tests"]["get"]["parameters"]
    }
    assert listing["limit"] == {"type": "integer", "minimum": 1, "maximum": 100}
    assert set(listing["sort"]["enum"]) == {"newest", "most_reviewed", "top_score", "relevance"}
    assert listing["status"]["enum"] == ["awaiting", "reviewed", "ranked"]
    form = document["paths"]["/api/v1/tests"]["post"]["requestBody"]["content"]
    visibility = form["multipart/form-data"]["schema"]["properties"]["source_visibility"]
    assert visibility["enum"] == ["public", "private"]
    schemas = document["components"]["schemas"]
    assert "malware" in schemas["ReportReason"]["enum"]
    assert "moderator" in schemas["Role"]["enum"]


def test_every_timestamp_is_a_date_time(document: dict) -> None:
    def walk(node: object, name: str = "") -> None:
        if isinstance(node, dict):
            # chain_broken_at names a snapshot, not a time.
            if name.endswith("_at") and name != "chain_broken_at" and "properties" not in node:
                variants = node.get("anyOf", [node])
                assert any(v.get("format") == "date-time" for v in variants), name
            for key, value in node.get("properties", {}).items():
                walk(value, key)
            if "items" in node:
                walk(node["items"], name)

    for schema in document["components"]["schemas"].values():
        walk(schema)


def test_cached_reads_document_304_and_their_headers(document: dict) -> None:
    listing = document["paths"]["/api/v1/tests"]["get"]["responses"]
    assert "304" in listing
    assert {"ETag", "Cache-Control", "Link"} <= set(listing["200"]["headers"])
    submit = document["paths"]["/api/v1/tests"]["post"]["responses"]
    assert {"RateLimit", "RateLimit-Policy"} <= set(submit["202"]["headers"])
    assert "Retry-After" in submit["429"]["headers"]
