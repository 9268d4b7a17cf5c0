"""Schemathesis against the running API: requests generated from /api/v1/openapi.json are
sent to a real uvicorn server on a migrated test database, with an owner's API token, and
every answer must be documented — no 500, a documented status and content type, and a
body matching its schema. Bounded: a few examples per operation and a deadline each."""

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
from sqlalchemy import Engine
from sqlmodel import Session

from benchmax.api import build_api
from benchmax.context import AppContext
from benchmax.models import Role
from benchmax.services import tokens
from benchmax.settings import Settings
from tests.support.factories import make_review, make_test, make_user

MAX_EXAMPLES = 12
CHECKS = (
    schemathesis.checks.not_a_server_error,
    schemathesis.checks.status_code_conformance,
    schemathesis.checks.content_type_conformance,
    schemathesis.checks.response_schema_conformance,
)


@pytest.fixture
def live_api(settings: Settings, engine: Engine) -> Iterator[tuple[schemathesis.BaseSchema, str]]:
    api = build_api(AppContext.from_settings(settings, engine=engine))
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


def _check_operation(operation: schemathesis.APIOperation, token: str, statuses: list[int]) -> None:
    @given(case=operation.as_strategy())
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

    run()


@pytest.mark.timeout(240)
def test_every_operation_answers_as_documented(
    live_api: tuple[schemathesis.BaseSchema, str],
) -> None:
    schema, token = live_api
    operations = [_operation(result) for result in schema.get_all_operations()]
    assert len(operations) > 20
    statuses: list[int] = []
    for operation in operations:
        _check_operation(operation, token, statuses)
    # Really exercised: many requests, and both successes and refusals among them.
    assert len(statuses) > 3 * len(operations)
    assert any(s < 300 for s in statuses)
    assert any(400 <= s < 500 for s in statuses)
