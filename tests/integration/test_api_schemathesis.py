"""Schemathesis against the running API: requests generated from /api/v1/openapi.json are
sent to a real uvicorn server on a migrated test database, with an owner's API token, and
every answer must be documented — no 500, a documented status and content type, and a
body matching its schema. Every operation gets positive data (which fits the document:
none may be refused as malformed) and negative data (which does not). Bounded: a few
examples per operation and mode."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
import schemathesis
import uvicorn
from hypothesis import HealthCheck, given, settings
from schemathesis.core.result import Err, Result
from schemathesis.errors import InvalidSchema
from schemathesis.generation import GenerationMode
from sqlalchemy import Engine
from sqlmodel import Session

from benchmax.api import build_api
from benchmax.context import AppContext
from benchmax.models import Role
from benchmax.services import tokens
from benchmax.settings import Settings
from tests.support.factories import make_review, make_test, make_user

MAX_EXAMPLES = 8
CHECKS = (
    schemathesis.checks.not_a_server_error,
    schemathesis.checks.status_code_conformance,
    schemathesis.checks.content_type_conformance,
    schemathesis.checks.response_schema_conformance,
)
# Valid data refused for a reason no schema can state: a feed cursor only the server issues, the
# path and the body naming one prompt key. Anything else a positive request is refused for is
# a rule the document failed to state.
UNSTATABLE_REFUSALS = {
    ("/api/v1/tests", "invalid_cursor"),
    ("/api/v1/moderation/prompts/{key}/alias", "invalid_prompt_key"),
}


@pytest.fixture
def live_api(settings: Settings, engine: Engine) -> Iterator[tuple[schemathesis.BaseSchema, str]]:
    steady = settings.model_copy(
        update={"api_cache_settle_seconds": 0, "api_submission_rate_limit": 1000}
    )
    api = build_api(AppContext.from_settings(steady, engine=engine))
    with Session(engine, expire_on_commit=False) as session:
        owner = make_user(session, handle="owner", role=Role.OWNER)
        test = make_test(session, owner)
        make_review(session, test, owner)
        _row, token = tokens.create_token(session, owner, "schemathesis")
        session.commit()
    config = uvicorn.Config(api, host="127.0.0.1", port=0, log_config=None, lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    schema = schemathesis.openapi.from_url(f"{base}/api/v1/openapi.json")
    schema.config.update(base_url=base)
    yield schema, token
    server.should_exit = True
    thread.join(timeout=10)


def _operation(
    result: Result[schemathesis.APIOperation, InvalidSchema],
) -> schemathesis.APIOperation:
    """Fails the test on an operation that schemathesis could not read from our document."""
    assert not isinstance(result, Err), result.err()
    return result.ok()


def _takes_input(operation: schemathesis.APIOperation) -> bool:
    return bool(operation.path_parameters or operation.query or operation.headers or operation.body)


def _check_operation(
    operation: schemathesis.APIOperation, mode: GenerationMode, token: str, statuses: list[int]
) -> None:
    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
    )
    def run(case: schemathesis.Case) -> None:
        response = case.call_and_validate(
            headers={"Authorization": f"Bearer {token}"}, checks=list(CHECKS)
        )
        statuses.append(response.status_code)
        if mode == GenerationMode.POSITIVE and response.status_code in (400, 413, 415, 422):
            code = response.json()["error"]["code"]
            assert (operation.path, code) in UNSTATABLE_REFUSALS, (
                f"valid request refused: {case.method} {case.formatted_path} "
                f"{response.status_code} {response.text}\n{case.as_curl_command()}"
            )

    run()


@pytest.mark.timeout(480)  # ~100 s on an idle 2-core machine
def test_every_operation_answers_as_documented(
    live_api: tuple[schemathesis.BaseSchema, str],
) -> None:
    schema, token = live_api
    operations = [_operation(result) for result in schema.get_all_operations()]
    assert len(operations) > 20
    statuses: list[int] = []
    for operation in operations:
        _check_operation(operation, GenerationMode.POSITIVE, token, statuses)
        if _takes_input(operation):  # an operation without inputs has no invalid request
            _check_operation(operation, GenerationMode.NEGATIVE, token, statuses)
    # Really exercised: many requests, and both successes and refusals among them.
    assert len(statuses) > 6 * len(operations)
    assert any(s < 300 for s in statuses)
    assert any(400 <= s < 500 for s in statuses)
