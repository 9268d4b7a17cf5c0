"""``/api/v1/moderation/...`` and ``/api/v1/users/{handle}/...``: queues and decisions.

Every route is authorised in the services by the caller's role, so a moderator's API token
can moderate exactly as the moderator can on ``/moderation``. Each decision's body carries
``reason`` (at least 10 characters) and the answer is the appended decision row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from sqlmodel import Session
from starlette.routing import Route

from benchmax.api.actions import Action, decision_json, endpoint, optional_id, text
from benchmax.models import ModerationDecision, User
from benchmax.services.moderation import (
    disputes,
    holds,
    label_decisions,
    queues,
    reports,
    roles,
    takedowns,
)

QUEUE_LIMIT = 50
Params = dict[str, Any]
Decide = Callable[[Session, User | None, Params, Params], ModerationDecision]


def _decision(decide: Decide) -> Action:
    def action(session: Session, user: User | None, path: Params, body: Params) -> Params:
        return decision_json(decide(session, user, path, body))

    return action


def _account(change: Callable[[Session, User | None, Params, Params], User]) -> Action:
    def action(session: Session, user: User | None, path: Params, body: Params) -> Params:
        account = change(session, user, path, body)
        return {"user": {"handle": account.handle, "role": str(account.role),
                         "status": str(account.status)}}  # fmt: skip

    return action


def _queues(session: Session, user: User | None, _path: Params, _body: Params) -> Params:
    return queues.moderation_queues(session, user, QUEUE_LIMIT).to_json()


def _hold(outcome: Literal["keep", "clear"]) -> Action:
    return _decision(
        lambda s, u, p, b: holds.decide_hold(s, u, p["test_id"], outcome, text(b, "reason"))
    )


def _report(outcome: Literal["resolve", "dismiss"]) -> Action:
    return _decision(
        lambda s, u, p, b: reports.decide_report(s, u, p["report_id"], outcome, text(b, "reason"))
    )


def _dispute(outcome: Literal["uphold", "overturn"]) -> Action:
    return _decision(
        lambda s, u, p, b: disputes.decide_dispute(
            s, u, p["dispute_id"], outcome, text(b, "reason"), b.get("score")
        )
    )


def _post(path: str, action: Action) -> Route:
    return Route(path, endpoint(action), methods=["POST"])


def moderation_routes() -> list[Route]:
    base = "/api/v1/moderation"
    return [
        Route(f"{base}/queues", endpoint(_queues), methods=["GET"]),
        _post(
            f"{base}/tests/{{test_id}}/remove",
            _decision(
                lambda s, u, p, b: takedowns.remove_test(
                    s, u, p["test_id"], text(b, "reason"), optional_id(b, "report_id")
                )
            ),
        ),
        _post(
            f"{base}/tests/{{test_id}}/restore",
            _decision(
                lambda s, u, p, b: takedowns.restore_test(s, u, p["test_id"], text(b, "reason"))
            ),
        ),
        _post(f"{base}/tests/{{test_id}}/hold/keep", _hold("keep")),
        _post(f"{base}/tests/{{test_id}}/hold/clear", _hold("clear")),
        _post(
            f"{base}/evidence/{{evidence_id}}/block",
            _decision(
                lambda s, u, p, b: takedowns.block_evidence(
                    s, u, p["evidence_id"], text(b, "reason"), optional_id(b, "report_id")
                )
            ),
        ),
        _post(f"{base}/reports/{{report_id}}/resolve", _report("resolve")),
        _post(f"{base}/reports/{{report_id}}/dismiss", _report("dismiss")),
        _post(f"{base}/disputes/{{dispute_id}}/uphold", _dispute("uphold")),
        _post(f"{base}/disputes/{{dispute_id}}/overturn", _dispute("overturn")),
        _post(
            f"{base}/labels/map",
            _decision(
                lambda s, u, p, b: label_decisions.map_label(
                    s, u, b.get("kind"), b.get("label"), text(b, "target"), text(b, "reason")
                )
            ),
        ),
        _post(
            f"{base}/labels/leave",
            _decision(
                lambda s, u, p, b: label_decisions.leave_label_declared(
                    s, u, b.get("kind"), b.get("label"), text(b, "reason")
                )
            ),
        ),
        _post(
            "/api/v1/users/{handle}/role",
            _account(
                lambda s, u, p, b: roles.change_role(
                    s, u, p["handle"], text(b, "role"), text(b, "reason")
                )
            ),
        ),
        _post(
            "/api/v1/users/{handle}/suspend",
            _account(lambda s, u, p, b: roles.suspend(s, u, p["handle"], text(b, "reason"))),
        ),
        _post(
            "/api/v1/users/{handle}/reinstate",
            _account(lambda s, u, p, b: roles.reinstate(s, u, p["handle"], text(b, "reason"))),
        ),
    ]
