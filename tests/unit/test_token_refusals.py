"""A suspended account gets no new API token, whatever screen or script asks for one."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from benchmax.models import AccountStatus, ApiToken
from benchmax.services import tokens
from benchmax.services.errors import Forbidden
from tests.support.factories import make_user


def test_a_suspended_account_is_refused_a_token_and_nothing_is_stored(session: Session) -> None:
    user = make_user(session, status=AccountStatus.SUSPENDED)
    with pytest.raises(Forbidden) as refused:
        tokens.create_token(session, user, "after suspension")
    assert refused.value.code == "account_suspended"
    assert refused.value.message == "Suspended accounts cannot create API tokens."
    assert session.exec(select(ApiToken)).all() == []


def test_an_active_account_gets_one(session: Session) -> None:
    user = make_user(session)
    row, plaintext = tokens.create_token(session, user, "harness")
    assert plaintext.startswith("bmx_")
    assert row.user_id == user.id
