"""API tokens on both engines: shown once, stored as a hash, owned, revocable."""

from __future__ import annotations

import hashlib
import re
from datetime import timedelta

import pytest
from sqlalchemy import func
from sqlmodel import Session, select

from benchmax.models import AccountStatus, ApiToken, AuditEvent
from benchmax.models._base import utcnow
from benchmax.services.errors import ServiceError
from benchmax.services.tokens import (
    MAX_ACTIVE_TOKENS,
    TOKEN_NAME_MAX,
    create_token,
    list_tokens,
    revoke_token,
    token_owner,
    validate_token_name,
)
from tests.support.factories import make_user

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)


def _events(session: Session, action: str) -> list[AuditEvent]:
    return list(session.exec(select(AuditEvent).where(AuditEvent.action == action)))


@BOTH
def test_plaintext_is_shown_once_and_only_its_hash_is_stored(session: Session) -> None:
    user = make_user(session)
    token, plaintext = create_token(session, user, "  CI harness  ")
    session.commit()
    assert re.fullmatch(r"bmx_[A-Za-z0-9_-]{40}", plaintext)
    assert token.name == "CI harness"
    assert token.token_hash == hashlib.sha256(plaintext.encode()).hexdigest()
    assert token.last_four == plaintext[-4:]
    stored = session.get(ApiToken, token.id)
    assert stored is not None
    assert all(plaintext[4:] not in str(value) for value in stored.model_dump().values())
    [event] = _events(session, "api_token.created")
    assert (event.actor_id, event.subject_id) == (user.id, token.id)
    assert plaintext[4:] not in str(event.detail)


@BOTH
def test_tokens_are_unique(session: Session) -> None:
    user = make_user(session)
    plaintexts = {create_token(session, user, f"t{n}")[1] for n in range(5)}
    assert len(plaintexts) == 5


@BOTH
def test_a_token_authenticates_its_user_and_records_use(session: Session) -> None:
    user = make_user(session)
    token, plaintext = create_token(session, user, "script")
    assert token.last_used_at is None
    assert token_owner(session, plaintext) == (token, user)
    session.commit()
    session.refresh(token)
    assert token.last_used_at is not None


@BOTH
def test_last_used_is_written_at_most_once_a_minute(session: Session) -> None:
    user = make_user(session)
    token, plaintext = create_token(session, user, "busy harness")
    token_owner(session, plaintext)
    session.commit()
    session.refresh(token)
    first_use = token.last_used_at
    token_owner(session, plaintext)
    session.commit()
    session.refresh(token)  # read back from the engine: SQLite loses the zone here
    assert token.last_used_at == first_use
    token.last_used_at = utcnow() - timedelta(minutes=5)
    session.add(token)
    session.commit()
    session.refresh(token)
    token_owner(session, plaintext)
    session.commit()
    session.refresh(token)
    assert token.last_used_at is not None
    assert token.last_used_at != first_use


@BOTH
def test_lookalike_and_garbage_tokens_are_refused(session: Session) -> None:
    user = make_user(session)
    token, plaintext = create_token(session, user, "real")
    flipped = plaintext[:-1] + ("A" if plaintext[-1] != "A" else "B")
    for candidate in [
        "",
        "bmx_",
        "bmx_short",
        flipped,
        plaintext + " ",
        " " + plaintext,
        plaintext.upper(),
        "Bearer " + plaintext,
        plaintext[4:],
        token.token_hash,
        "bmx_' OR '1'='1' --" + "x" * 21,
        "bmx_" + "%" * 40,
        plaintext * 250,
    ]:
        assert token_owner(session, candidate) is None, candidate[:20]


@BOTH
def test_revoked_tokens_are_refused_and_suspended_accounts_still_identified(
    session: Session,
) -> None:
    user = make_user(session)
    token, plaintext = create_token(session, user, "old")
    revoke_token(session, user, token.id)
    assert token_owner(session, plaintext) is None

    other = make_user(session)
    other_token, other_plaintext = create_token(session, other, "new")
    other.status = AccountStatus.SUSPENDED
    session.add(other)
    session.flush()
    # Still identifies its account, which every action then refuses as suspended.
    assert token_owner(session, other_plaintext) == (other_token, other)
    with pytest.raises(ServiceError, match="Suspended"):
        create_token(session, other, "another")


@BOTH
def test_list_shows_own_live_tokens_newest_first(session: Session) -> None:
    user, other = make_user(session), make_user(session)
    older, _ = create_token(session, user, "older")
    older.created_at = utcnow() - timedelta(hours=1)
    session.add(older)
    newer, _ = create_token(session, user, "newer")
    revoked, _ = create_token(session, user, "revoked")
    revoke_token(session, user, revoked.id)
    create_token(session, other, "not mine")
    session.commit()
    assert [t.id for t in list_tokens(session, user)] == [newer.id, older.id]


@BOTH
def test_only_the_owner_can_revoke(session: Session) -> None:
    owner, stranger = make_user(session), make_user(session)
    token, plaintext = create_token(session, owner, "mine")
    with pytest.raises(ServiceError, match="No such token") as foreign:
        revoke_token(session, stranger, token.id)
    with pytest.raises(ServiceError, match="No such token") as missing:
        revoke_token(session, owner, "doesnotexist0000")
    assert foreign.value.message == missing.value.message
    assert token_owner(session, plaintext) == (token, owner)


@BOTH
def test_revoking_twice_is_harmless(session: Session) -> None:
    user = make_user(session)
    token, _ = create_token(session, user, "t")
    first = revoke_token(session, user, token.id).revoked_at
    second = revoke_token(session, user, token.id).revoked_at
    session.commit()
    assert first is not None
    assert first == second
    assert len(_events(session, "api_token.revoked")) == 1


@BOTH
def test_active_tokens_are_capped(session: Session) -> None:
    user = make_user(session)
    tokens = [create_token(session, user, f"t{n}")[0] for n in range(MAX_ACTIVE_TOKENS)]
    with pytest.raises(ServiceError, match="revoke one"):
        create_token(session, user, "one too many")
    revoke_token(session, user, tokens[0].id)
    assert create_token(session, user, "fits again")[0].name == "fits again"
    count = session.exec(select(func.count()).select_from(ApiToken)).one()
    assert count == MAX_ACTIVE_TOKENS + 1


@pytest.mark.parametrize(
    ("raw", "name"),
    [("CI", "CI"), ("  padded  ", "padded"), ("x" * TOKEN_NAME_MAX, "x" * TOKEN_NAME_MAX)],
)
def test_good_token_names(raw: str, name: str) -> None:
    assert validate_token_name(raw) == name


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("", "Give the token a name"),
        ("   ", "Give the token a name"),
        ("x" * (TOKEN_NAME_MAX + 1), "at most"),
        ("tab\there", "control or invisible"),
        ("new\nline", "control or invisible"),
        ("nul\x00", "control or invisible"),
        ("\u202eevil", "control or invisible"),
        ("zero\u200bwidth", "control or invisible"),
        ("line\u2028sep", "control or invisible"),
    ],
)
def test_bad_token_names_say_why(raw: str, reason: str) -> None:
    with pytest.raises(ServiceError, match=reason):
        validate_token_name(raw)


@BOTH
def test_a_bad_name_creates_nothing(session: Session) -> None:
    user = make_user(session)
    with pytest.raises(ServiceError):
        create_token(session, user, "bad\x07name")
    assert list_tokens(session, user) == []
    assert _events(session, "api_token.created") == []
