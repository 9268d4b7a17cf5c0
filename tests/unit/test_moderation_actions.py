"""One registry of moderation actions serves the API and the /moderation page."""

from __future__ import annotations

import pytest

from benchmax.api.moderation import _ROUTES
from benchmax.models import AuditAction, ModerationAction
from benchmax.services.errors import ServiceError
from benchmax.services.moderation import actions


def test_every_action_has_one_service_call_and_one_route() -> None:
    assert set(actions.ACTIONS) == set(ModerationAction)
    assert sorted(_ROUTES.values()) == sorted(ModerationAction)


def test_an_unknown_action_is_refused_before_anything_runs() -> None:
    with pytest.raises(ServiceError) as refused:
        actions.perform(None, None, "test.delete", actions.Request("t", "reason"))  # type: ignore[arg-type]

    assert (refused.value.code, refused.value.status) == ("unknown_action", 404)


def test_verbs_name_the_page_buttons() -> None:
    assert ModerationAction.TEST_REMOVE.verb == "remove"
    assert len({action.verb for action in ModerationAction}) == len(ModerationAction)


def test_audit_names_are_a_closed_list() -> None:
    names = {str(action) for action in AuditAction} | {
        f"moderation.{action}" for action in ModerationAction
    }

    assert len(names) == len(AuditAction) + len(ModerationAction)
    assert all(len(name) <= 64 for name in names)  # the audit_event.action column
