"""``/api/v1/moderation/...`` and ``/api/v1/users/{handle}/...``: queues and decisions.

Every route is authorised in the services by the caller's role, so a moderator's API token
can moderate exactly as the moderator can on ``/moderation`` (both run the actions of
``services.moderation.actions``). Each decision's body carries ``reason`` (at least 10
characters) and the answer is the appended decision row, or the changed account.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session
from starlette.routing import Route

from benchmax.api.actions import Action, decision_json, endpoint, optional_id, text
from benchmax.context import AppContext
from benchmax.models import ModerationAction, ModerationDecision, User
from benchmax.services.moderation import actions, queues

QUEUE_LIMIT = 50
Params = dict[str, Any]
A = ModerationAction
_BASE = "/api/v1/moderation"
# path -> action; the path's one parameter is the action's target.
_ROUTES = {
    f"{_BASE}/tests/{{test_id}}/remove": A.TEST_REMOVE,
    f"{_BASE}/tests/{{test_id}}/restore": A.TEST_RESTORE,
    f"{_BASE}/tests/{{test_id}}/hold/keep": A.HOLD_KEEP,
    f"{_BASE}/tests/{{test_id}}/hold/clear": A.HOLD_CLEAR,
    f"{_BASE}/evidence/{{evidence_id}}/block": A.EVIDENCE_BLOCK,
    f"{_BASE}/reports/{{report_id}}/resolve": A.REPORT_RESOLVE,
    f"{_BASE}/reports/{{report_id}}/dismiss": A.REPORT_DISMISS,
    f"{_BASE}/disputes/{{dispute_id}}/uphold": A.DISPUTE_UPHOLD,
    f"{_BASE}/disputes/{{dispute_id}}/overturn": A.DISPUTE_OVERTURN,
    f"{_BASE}/labels/map": A.LABEL_MAP,
    f"{_BASE}/labels/leave": A.LABEL_LEAVE,
    "/api/v1/users/{handle}/role": A.USER_ROLE,
    "/api/v1/users/{handle}/suspend": A.USER_SUSPEND,
    "/api/v1/users/{handle}/reinstate": A.USER_REINSTATE,
    f"{_BASE}/prompts/{{key}}/alias": A.PROMPT_ALIAS,
    f"{_BASE}/appeals/{{appeal_id}}/grant": A.APPEAL_GRANT,
    f"{_BASE}/appeals/{{appeal_id}}/reject": A.APPEAL_REJECT,
}


def _request(path: Params, body: Params) -> actions.Request:
    """The action's request: the target from the path, or the declared label of a label route."""
    target = next(iter(path.values()), None)
    return actions.Request(
        target=target if isinstance(target, str) else text(body, "label"),
        reason=text(body, "reason"),
        report_id=optional_id(body, "report_id"),
        kind=text(body, "kind"),
        slug=text(body, "target"),
        role=text(body, "role"),
        score=body.get("score"),
        other_key=text(body, "other_key"),
    )


def _answer(result: ModerationDecision | User) -> Params:
    if isinstance(result, ModerationDecision):
        return decision_json(result)
    return {"user": {"handle": result.handle, "role": str(result.role),
                     "status": str(result.status)}}  # fmt: skip


def _decide(action: ModerationAction) -> Action:
    def run(session: Session, user: User | None, path: Params, body: Params) -> Params:
        return _answer(actions.perform(session, user, action, _request(path, body)))

    return run


def _queues(session: Session, user: User | None, _path: Params, _body: Params) -> Params:
    return queues.moderation_queues(session, user, QUEUE_LIMIT).to_json()


def moderation_routes(ctx: AppContext) -> list[Route]:
    return [
        Route(f"{_BASE}/queues", endpoint(ctx, _queues), methods=["GET"]),
        *(
            Route(path, endpoint(ctx, _decide(action)), methods=["POST"])
            for path, action in _ROUTES.items()
        ),
    ]
