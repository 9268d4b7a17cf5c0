"""No API route runs SQL on the event loop's thread.

Every async route hands its database work to the thread pool; one that calls the session
directly stalls every other request while the query runs. A hook on the real engine records
each statement and whether it executes on a thread with a running event loop (the app's
loop in ``TestClient``; the pool's worker threads have none). That check is exact, where a
timing ticker would be flaky on a busy machine, and it catches a blocking call however it is
spelled (a helper, a service, ``ctx.session``), which a source scan would not.

Every route ``build_api`` serves is driven, so a new route is covered without editing this
file; the evidence redirects are the only ones that ask the database nothing.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine, event
from sqlmodel import Session
from starlette.routing import Route
from starlette.testclient import TestClient

from benchmax.adapters.auth import LocalIssuer
from benchmax.api import build_api
from benchmax.api.fallback import ApiFallback
from benchmax.context import AppContext
from benchmax.models import Role
from benchmax.services import tokens
from benchmax.settings import Settings
from tests.support.factories import make_test, make_user

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
# Routes that answer without a query by design (see benchmax/api/compat.py).
NO_SQL = ("/evidence/",)
# The API's description, built from the routes alone (benchmax/api/openapi/routes.py), and
# the open-data listing, read from object storage (benchmax/api/open_data.py), and
# security.txt, written from the settings (benchmax/api/security_txt.py), and the snapshot
# signing key's public half, from the settings too (benchmax/api/showcase.py).
NO_SQL_PATHS = frozenset(
    {
        "/api/v1/openapi.json",
        "/api",
        "/api/v1/exports",
        "/data",
        "/.well-known/security.txt",
        "/api/v1/leaderboard/public-key",
    }
)


class _Statements:
    def __init__(self) -> None:
        self.off_loop = 0
        self.on_loop: list[str] = []

    def __call__(self, _conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            self.off_loop += 1
            return
        self.on_loop.append(statement.split(None, 1)[0])


@pytest.fixture
def statements(engine: Engine) -> Iterator[_Statements]:
    seen = _Statements()
    event.listen(engine, "before_cursor_execute", seen)
    yield seen
    event.remove(engine, "before_cursor_execute", seen)


def _calls(ctx: AppContext, test_id: str) -> list[tuple[str, str]]:
    """(method, path) for every route of the API, path parameters filled in (a real Test's
    id, so routes that check an id's form before looking it up still reach the database)."""
    calls: list[tuple[str, str]] = []
    for route in build_api(ctx).routes:
        if isinstance(route, ApiFallback):
            continue  # answers unknown /api/v1 paths with 404 and asks the database nothing
        assert isinstance(route, Route)
        if route.path.startswith(NO_SQL) or route.path in NO_SQL_PATHS:
            continue
        path = re.sub(r"\{handle\}", "owner1", route.path)
        path = re.sub(r"\{key\}", "0" * 64, path)  # a well-formed prompt key reaches the query
        path = re.sub(r"\{[^}]+\}", test_id, path)
        calls.extend((method, path) for method in sorted(route.methods or ()) if method != "HEAD")
    return calls


@BOTH
def test_no_route_runs_sql_on_the_event_loop(
    api_client: TestClient,
    settings: Settings,
    engine: Engine,
    statements: _Statements,
    app_ctx: AppContext,
) -> None:
    with Session(engine) as session:
        owner = make_user(session, handle="owner1", role=Role.MODERATOR)
        _token, api_token = tokens.create_token(session, owner, "loop check")
        test_id = make_test(session, make_user(session)).id
        session.commit()
        subject = owner.auth_subject
    signed_in = {"Authorization": f"Bearer {LocalIssuer(settings).mint(subject)}"}
    by_token = {"Authorization": f"Bearer {api_token}"}
    calls = _calls(app_ctx, test_id)
    assert ("GET", "/healthz") in calls
    assert ("POST", "/api/v1/tests") in calls
    for method, path in calls:
        before = statements.off_loop
        if (method, path) == ("POST", "/api/v1/tests"):
            response = api_client.post(
                path,
                headers=by_token,
                files={"files": ("a.txt", b"hello")},
                data={"prompt": "p", "model": "m", "harness": "h", "output": "o"},
            )
        elif path in ("/api/v1/tests/batch", "/api/v1/panel-imports"):  # API tokens only
            setup = {"model": "m", "harness": "h", "output": "o"}
            response = api_client.post(
                path, headers=by_token, json={"prompt": "p", "setups": [setup, setup]}
            )
        elif method == "POST":
            response = api_client.request(
                method, path, headers={**signed_in, "X-Filename": "a.txt"}, json={"reason": "x"}
            )
        else:  # the status route is the submission API's: API tokens only
            headers = by_token if path.endswith("/status") else signed_in
            response = api_client.request(method, path, headers=headers)
        assert response.status_code < 500, (method, path, response.text)
        assert statements.on_loop == [], f"{method} {path} ran SQL on the event loop"
        assert statements.off_loop > before, f"{method} {path} ran no SQL: the check saw nothing"
