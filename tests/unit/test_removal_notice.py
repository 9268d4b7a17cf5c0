"""Who reads why a Test was removed: active moderators and owners, only for a removed Test."""

from __future__ import annotations

from sqlmodel import Session

from benchmax.context import AppContext
from benchmax.models import AccountStatus, Role, TestState
from benchmax.services import detail_view
from benchmax.services.moderation.removal_notice import removal_notice
from benchmax.services.moderation.takedowns import remove_test
from tests.support.factories import make_test, make_user

REASON = "Spam pasted as the output, not a Test."


def test_staff_read_the_decision_and_others_nothing(app_ctx: AppContext) -> None:
    with Session(app_ctx.engine) as session:
        moderator = make_user(session, role=Role.MODERATOR, handle="mod1")
        owner = make_user(session, role=Role.OWNER)
        suspended = make_user(session, role=Role.MODERATOR, status=AccountStatus.SUSPENDED)
        stranger = make_user(session)
        test = make_test(session)
        remove_test(session, moderator, test.id, REASON)
        session.commit()
        for staff in (moderator, owner):
            notice = removal_notice(session, test.id, staff)
            assert notice is not None
            assert (notice.reason, notice.moderator_handle) == (REASON, "mod1")
            assert notice.removed_at is not None
        for other in (None, stranger, suspended):
            assert removal_notice(session, test.id, other) is None
        assert removal_notice(session, "not-an-id!", moderator) is None


def test_only_a_removed_test_opens_to_staff(app_ctx: AppContext) -> None:
    with Session(app_ctx.engine) as session:
        moderator = make_user(session, role=Role.MODERATOR)
        hidden = make_test(session, state=TestState.NEEDS_ATTENTION)
        removed = make_test(session)
        remove_test(session, moderator, removed.id, REASON)
        session.commit()
        assert removal_notice(session, hidden.id, moderator) is None
        assert detail_view.get_test_view(session, hidden.id, moderator.id, staff=True) is None
        assert detail_view.get_test_view(session, removed.id, moderator.id) is None
        view = detail_view.get_test_view(session, removed.id, moderator.id, staff=True)
        assert view is not None
        assert not view.is_owner
        assert view.failure_reason == ""  # the contributor's own words stay theirs
