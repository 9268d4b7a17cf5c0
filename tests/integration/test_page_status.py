"""A page about one thing is served with 404 when its thing is not there for the viewer.

``PageStatusMiddleware`` runs over a stand-in for the static server (every path: 200 and the
same document) with the real context, database and sign-in key, so each case is the rule the
page itself follows (``services.page_subjects``) read as the viewer the cookie names.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from starlette.responses import HTMLResponse, JSONResponse
from starlette.testclient import TestClient
from starlette.types import Receive, Scope, Send

from benchmax.adapters.auth import SESSION_COOKIE, LocalIssuer
from benchmax.context import AppContext
from benchmax.first_paint.status import PageStatusMiddleware
from benchmax.models import Role, TestState, User
from benchmax.services.catalog.seed import seed_catalog
from benchmax.services.page_subjects import ROUTES, subject_of
from tests.support.factories import make_test, make_user
from tests.support.judge_helpers import JUDGE_KEY, make_active_snapshot

DOCUMENT = "<!doctype html><html><body><div id='root'></div></body></html>"
UNKNOWN_ID = "0" * 26


async def _static_server(scope: Scope, receive: Receive, send: Send) -> None:
    """What the app's static server does for a routed path: 200 and the one document."""
    if scope["path"].endswith(".json"):
        response: HTMLResponse | JSONResponse = JSONResponse({"ok": True})
    else:
        response = HTMLResponse(DOCUMENT)
    await response(scope, receive, send)


@pytest.fixture
def client(app_ctx: AppContext) -> TestClient:
    return TestClient(PageStatusMiddleware(_static_server, app_ctx))


@pytest.fixture
def people(app_ctx: AppContext) -> dict[str, User]:
    with app_ctx.session() as session:
        found = {
            "author": make_user(session, handle="author"),
            "stranger": make_user(session, handle="stranger"),
            "moderator": make_user(session, handle="moddy", role=Role.MODERATOR),
        }
        session.expunge_all()
    return found


def _as(client: TestClient, app_ctx: AppContext, user: User | None) -> TestClient:
    client.cookies.clear()
    if user is not None:
        client.cookies.set(SESSION_COOKIE, LocalIssuer(app_ctx.settings).mint(user.auth_subject))
    return client


def _test(app_ctx: AppContext, author: User, state: TestState) -> tuple[str, str]:
    with app_ctx.session() as session:
        test = make_test(session, session.get(User, author.id), state=state)
        return test.id, test.prompt_key


def test_a_public_test_is_200_and_an_unknown_or_malformed_one_404(
    client: TestClient, app_ctx: AppContext, people: dict[str, User]
) -> None:
    test_id, _ = _test(app_ctx, people["author"], TestState.PUBLIC)

    assert client.get(f"/tests/{test_id}").status_code == 200
    assert client.get(f"/tests/{test_id}/").status_code == 200
    for missing in (f"/tests/{UNKNOWN_ID}", "/tests/bad", "/tests/%27%20or%201=1"):
        response = client.get(missing)
        assert response.status_code == 404, missing
        assert response.text == DOCUMENT  # the same document: the page shows its not-found view


@pytest.mark.parametrize(
    ("state", "moderator_status"),
    [(TestState.NEEDS_ATTENTION, 404), (TestState.REMOVED, 200)],
    ids=["needs_attention: its contributor's alone", "removed: moderators see it too"],
)
def test_a_test_that_is_not_public_is_a_404_to_whoever_may_not_see_it(
    client: TestClient,
    app_ctx: AppContext,
    people: dict[str, User],
    state: TestState,
    moderator_status: int,
) -> None:
    test_id, _ = _test(app_ctx, people["author"], state)
    path = f"/tests/{test_id}"

    assert _as(client, app_ctx, None).get(path).status_code == 404
    assert _as(client, app_ctx, people["stranger"]).get(path).status_code == 404
    assert _as(client, app_ctx, people["moderator"]).get(path).status_code == moderator_status
    assert _as(client, app_ctx, people["author"]).get(path).status_code == 200


def test_a_forged_session_cookie_is_a_visitor(
    client: TestClient, app_ctx: AppContext, people: dict[str, User]
) -> None:
    test_id, _ = _test(app_ctx, people["author"], TestState.NEEDS_ATTENTION)
    client.cookies.set(SESSION_COOKIE, "not-a-token")

    assert client.get(f"/tests/{test_id}").status_code == 404


def test_every_other_page_about_one_thing(
    client: TestClient, app_ctx: AppContext, people: dict[str, User]
) -> None:
    _, prompt_key = _test(app_ctx, people["author"], TestState.PUBLIC)
    _, private_key = _test(app_ctx, people["author"], TestState.NEEDS_ATTENTION)
    with app_ctx.session() as session:
        seed_catalog(session)
        # A snapshot is only written with a judge configured; nothing here calls it.
        judged = app_ctx.settings.model_copy(
            update={
                "judge_base_url": "http://127.0.0.1:9/v1",
                "judge_api_key": JUDGE_KEY,
                "judge_calibration_sha256": "a" * 64,
            }
        )
        snapshot_id = make_active_snapshot(session, judged).id

    found = ["/u/author", "/u/Author", f"/judges/{snapshot_id}", "/models/claude"]
    found += ["/models/claude-sonnet-4-5", f"/prompts/{prompt_key}"]
    missing = ["/u/bad", "/u/no-such-person", f"/judges/{UNKNOWN_ID}", "/judges/bad"]
    missing += ["/models/bad", "/prompts/bad", f"/prompts/{'f' * 64}", f"/prompts/{private_key}"]
    assert {path: client.get(path).status_code for path in found} == dict.fromkeys(found, 200)
    assert {path: client.get(path).status_code for path in missing} == dict.fromkeys(missing, 404)


def test_head_requests_get_the_same_status(
    client: TestClient, app_ctx: AppContext, people: dict[str, User]
) -> None:
    assert client.head("/u/author").status_code == 200
    assert client.head("/u/bad").status_code == 404


def test_other_paths_and_other_responses_pass_through(client: TestClient) -> None:
    for path in ("/", "/models", "/prompts", "/leaderboard", "/tests/bad/extra", "/tests"):
        assert client.get(path).status_code == 200, path
    # Not a page: whatever the app answered stands, even under a page's route.
    assert client.get("/u/bad.json").status_code == 200
    assert client.post("/u/bad").status_code == 200


def _dynamic_routes() -> set[str]:
    """The routes in ``benchmax/benchmax.py``'s page table that name a thing in the path."""
    source = (Path(__file__).resolve().parents[2] / "benchmax" / "benchmax.py").read_text()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "PAGES":
            assert isinstance(node.value, ast.List)
            routes = {ast.literal_eval(entry.elts[0]) for entry in node.value.elts}  # type: ignore[attr-defined]
            return {route for route in routes if "[" in route}
    raise AssertionError("no PAGES table in benchmax/benchmax.py")


def test_every_page_about_one_thing_has_its_status_rule() -> None:
    assert _dynamic_routes() == set(ROUTES)


def test_the_route_patterns_take_one_segment() -> None:
    assert subject_of("/tests/abc") is not None
    assert subject_of("/tests/abc/") is not None
    assert subject_of("/tests/abc/def") is None
    assert subject_of("/tests/") is None
    assert subject_of("/models") is None
