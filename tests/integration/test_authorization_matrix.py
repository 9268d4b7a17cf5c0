"""Every review and moderation action through the API, tried by every kind of caller.

Callers sign in with session tokens in the Authorization header; a suspended account is
told so (403), a visitor is asked to sign in (401), and only the right roles change anything.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import func
from sqlmodel import Session, select
from starlette.testclient import TestClient

from benchmax.models import (
    AccountStatus,
    CaseState,
    CatalogModel,
    ModelFamily,
    ModerationDecision,
    ModerationHold,
    Review,
    Role,
    TestState,
    User,
)
from benchmax.services.tokens import create_token
from tests.support.factories import (
    make_dispute,
    make_evidence,
    make_report,
    make_review,
    make_test,
    make_user,
)

ACTORS = ("anonymous", "contributor", "suspended", "reviewer", "moderator", "owner")
ADMINS = frozenset({"moderator", "owner"})
SIGNED_IN_ACTIVE = frozenset({"contributor", "reviewer", "moderator", "owner"})
REASON = "Checked against the rules and decided."


@dataclass
class World:
    users: dict[str, User]
    ids: dict[str, str]


def _world(session: Session) -> World:
    users = {
        "contributor": make_user(session),
        "suspended": make_user(session, status=AccountStatus.SUSPENDED),
        "reviewer": make_user(session, role=Role.REVIEWER),
        "moderator": make_user(session, role=Role.MODERATOR),
        "owner": make_user(session, role=Role.OWNER),
    }
    other_reviewer = make_user(session, role=Role.REVIEWER)
    bystander = make_user(session)
    suspended_target = make_user(session, status=AccountStatus.SUSPENDED)
    test = make_test(session, users["contributor"])
    evidence = make_evidence(session, test)
    review = make_review(session, test, other_reviewer)
    undisputed = make_review(session, test, other_reviewer, score=40)
    dispute = make_dispute(session, review)
    report = make_report(session, test, bystander)
    removed = make_test(session, users["contributor"], state=TestState.REMOVED)
    session.add(ModerationHold(test_id=test.id, reason_code="injection_signals"))
    family = ModelFamily(slug="acme", name="Acme")
    session.add(family)
    session.flush()
    session.add(CatalogModel(family_id=family.id, slug="acme-one", name="Acme One"))
    make_test(session, bystander, model_label="Zorblax Ultra")
    session.commit()
    return World(
        users=users,
        ids={
            "test": test.id,
            "evidence": evidence.id,
            "review": review.id,
            "undisputed": undisputed.id,
            "dispute": dispute.id,
            "report": report.id,
            "removed": removed.id,
            "bystander": bystander.handle,
            "suspended_target": suspended_target.handle,
        },
    )


@dataclass(frozen=True)
class Case:
    name: str
    method: str
    path: str
    body: dict[str, Any]
    allowed: frozenset[str]
    status: int = 200


CASES = [
    Case("list reviews", "GET", "/api/v1/tests/{test}/reviews", {}, frozenset(ACTORS)),
    Case(
        "add review",
        "POST",
        "/api/v1/tests/{test}/reviews",
        {"score": 80, "reasoning": "Thorough output that follows the prompt closely."},
        frozenset({"reviewer", "moderator", "owner"}),
        201,
    ),
    Case(
        "report",
        "POST",
        "/api/v1/tests/{test}/reports",
        {"reason": "spam", "details": "An advert."},
        frozenset(SIGNED_IN_ACTIVE),
        201,
    ),
    Case(
        "dispute",
        "POST",
        "/api/v1/reviews/{undisputed}/disputes",
        {"reason": "The reviewer missed the second file."},
        frozenset({"contributor"}),
        201,
    ),
    Case("queues", "GET", "/api/v1/moderation/queues", {}, frozenset(ADMINS)),
    Case("remove", "POST", "/api/v1/moderation/tests/{test}/remove", {"reason": REASON}, ADMINS),
    Case(
        "restore", "POST", "/api/v1/moderation/tests/{removed}/restore", {"reason": REASON}, ADMINS
    ),
    Case(
        "block file",
        "POST",
        "/api/v1/moderation/evidence/{evidence}/block",
        {"reason": REASON},
        ADMINS,
    ),
    Case(
        "resolve report",
        "POST",
        "/api/v1/moderation/reports/{report}/resolve",
        {"reason": REASON},
        ADMINS,
    ),
    Case(
        "dismiss report",
        "POST",
        "/api/v1/moderation/reports/{report}/dismiss",
        {"reason": REASON},
        ADMINS,
    ),
    Case(
        "uphold dispute",
        "POST",
        "/api/v1/moderation/disputes/{dispute}/uphold",
        {"reason": REASON},
        ADMINS,
    ),
    Case(
        "overturn dispute",
        "POST",
        "/api/v1/moderation/disputes/{dispute}/overturn",
        {"reason": "The review ignored the attached log entirely.", "score": 90},
        ADMINS,
    ),
    Case(
        "keep hold", "POST", "/api/v1/moderation/tests/{test}/hold/keep", {"reason": REASON}, ADMINS
    ),
    Case(
        "clear hold",
        "POST",
        "/api/v1/moderation/tests/{test}/hold/clear",
        {"reason": REASON},
        ADMINS,
    ),
    Case(
        "map label",
        "POST",
        "/api/v1/moderation/labels/map",
        {"kind": "model", "label": "Zorblax Ultra", "target": "acme-one", "reason": REASON},
        ADMINS,
    ),
    Case(
        "leave label",
        "POST",
        "/api/v1/moderation/labels/leave",
        {"kind": "model", "label": "Zorblax Ultra", "reason": REASON},
        ADMINS,
    ),
    Case(
        "make reviewer",
        "POST",
        "/api/v1/users/{bystander}/role",
        {"role": "reviewer", "reason": REASON},
        ADMINS,
    ),
    Case(
        "make moderator",
        "POST",
        "/api/v1/users/{bystander}/role",
        {"role": "moderator", "reason": REASON},
        frozenset({"owner"}),
    ),
    Case("suspend", "POST", "/api/v1/users/{bystander}/suspend", {"reason": REASON}, ADMINS),
    Case(
        "reinstate",
        "POST",
        "/api/v1/users/{suspended_target}/reinstate",
        {"reason": REASON},
        ADMINS,
    ),
]
ADMINS_ONLY = {case.name for case in CASES if case.allowed == ADMINS}


def _count(session: Session, model: type[ModerationDecision] | type[Review]) -> int:
    return session.exec(select(func.count()).select_from(model)).one()


@pytest.mark.parametrize("actor", ACTORS)
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_only_the_right_roles_succeed(
    api_client: TestClient,
    session: Session,
    session_headers: Callable[[User], dict[str, str]],
    case: Case,
    actor: str,
) -> None:
    world = _world(session)
    headers = {} if actor == "anonymous" else session_headers(world.users[actor])
    decisions_before = _count(session, ModerationDecision)
    reviews_before = _count(session, Review)

    response = client_call(api_client, case, world, headers)

    session.expire_all()
    changed = _count(session, ModerationDecision) - decisions_before
    if actor in case.allowed:
        assert response.status_code == case.status, response.json()
        if case.method == "POST" and case.name in ADMINS_ONLY | {"make moderator"}:
            assert changed >= 1
    else:
        expected = {"anonymous": 401, "suspended": 403}.get(actor, 403)
        assert response.status_code == expected, response.json()
        error = response.json()["error"]
        if actor == "suspended":
            assert "suspended" in error["message"]
        if actor == "anonymous":
            assert "Sign in" in error["message"]
        assert changed == 0
        assert _count(session, Review) == reviews_before


def client_call(client: TestClient, case: Case, world: World, headers: dict[str, str]) -> Any:
    path = case.path.format(**world.ids)
    if case.method == "GET":
        return client.get(path, headers=headers)
    return client.post(path, json=case.body, headers=headers)


def test_a_moderator_api_token_can_moderate_and_a_suspended_token_cannot(
    api_client: TestClient, session: Session
) -> None:
    world = _world(session)
    _, moderator_token = create_token(session, world.users["moderator"], "mod script")
    contributor = world.users["contributor"]
    _, contributor_token = create_token(session, contributor, "harness")
    contributor.status = AccountStatus.SUSPENDED
    session.add(contributor)
    session.commit()

    ok = api_client.post(
        f"/api/v1/moderation/reports/{world.ids['report']}/dismiss",
        json={"reason": REASON},
        headers={"Authorization": f"Bearer {moderator_token}"},
    )
    refused = api_client.post(
        f"/api/v1/tests/{world.ids['test']}/reports",
        json={"reason": "spam"},
        headers={"Authorization": f"Bearer {contributor_token}"},
    )

    assert ok.status_code == 200
    assert ok.json()["decision"]["next_state"] == CaseState.DISMISSED.value
    # The token is genuine, so the answer names the suspension, not a bad token.
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "account_suspended"
    assert "suspended" in refused.json()["error"]["message"]


def test_cookie_sessions_need_the_apps_origin_to_change_anything(
    api_client: TestClient, session: Session, session_headers: Callable[[User], dict[str, str]]
) -> None:
    world = _world(session)
    token = session_headers(world.users["moderator"])["Authorization"].removeprefix("Bearer ")
    path = f"/api/v1/moderation/reports/{world.ids['report']}/dismiss"
    api_client.cookies.set("__session", token)

    foreign = api_client.post(
        path, json={"reason": REASON}, headers={"Origin": "https://evil.test"}
    )
    missing = api_client.post(path, json={"reason": REASON})
    same_site = api_client.post(
        path, json={"reason": REASON}, headers={"Origin": "http://localhost:3000"}
    )
    reading = api_client.get("/api/v1/moderation/queues")

    assert foreign.status_code == missing.status_code == 403
    assert foreign.json()["error"]["code"] == "cross_origin"
    assert same_site.status_code == 200
    assert reading.status_code == 200
