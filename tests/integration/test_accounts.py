"""Accounts on both engines: handles, first sign-in, owner bootstrap, role grants."""

from __future__ import annotations

import secrets
import threading
import time

import pytest
from sqlalchemy import Engine, func
from sqlmodel import Session, col, select

from benchmax.adapters.auth import LocalIssuer, build_verifier, local_subject
from benchmax.models import AccountStatus, AuditEvent, Role, User
from benchmax.services.accounts import (
    current_user,
    get_or_create_local_user,
    grant_role,
    user_for_subject,
    validate_handle,
)
from benchmax.services.errors import Forbidden, ServiceError
from benchmax.settings import Settings
from tests.support.factories import make_user

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)


def _with_owners(settings: Settings, *subjects: str) -> Settings:
    return settings.model_copy(update={"owner_subjects": list(subjects)})


def _count(session: Session, model: type[User] | type[AuditEvent]) -> int:
    return session.exec(select(func.count()).select_from(model)).one()


def _role_events(session: Session, user: User) -> list[AuditEvent]:
    statement = select(AuditEvent).where(
        AuditEvent.subject_id == user.id, AuditEvent.action == "user.role_granted"
    )
    return list(session.exec(statement.order_by(col(AuditEvent.id))))


# --- handle rules (pure) ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "handle"),
    [
        ("alice", "alice"),
        ("  Alice  ", "alice"),
        ("a-b_c", "a-b_c"),
        ("abc", "abc"),
        ("r2d2", "r2d2"),
        ("x" * 32, "x" * 32),
    ],
)
def test_good_handles(raw: str, handle: str) -> None:
    assert validate_handle(raw) == handle


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("", "Choose a handle"),
        ("   ", "Choose a handle"),
        ("ab", "3 to 32 characters"),
        ("x" * 33, "3 to 32 characters"),
        ("al ice", "not allowed"),
        ("ali\tce", "not allowed"),
        ("al\x00ice", "not allowed"),
        ("\u0430lice", "plain ASCII"),  # Cyrillic a
        ("\uff41lice", "plain ASCII"),  # fullwidth a
        ("\u212aelvin", "plain ASCII"),  # Kelvin sign, which lower-cases to ASCII k
        ("alice\u200b", "plain ASCII"),  # zero-width space
        ("ali\u0301ce", "plain ASCII"),  # combining accent
        ("admin", "reserved"),
        ("ADMIN", "reserved"),
        ("sign-in", "reserved"),
        ("me", "3 to 32"),
        ("api", "reserved"),
        ("models", "reserved"),
        ("-alice", "not allowed"),
        ("alice-", "not allowed"),
        ("_x_", "not allowed"),
        ("a.b.c", "not allowed"),
        ("../etc", "not allowed"),
        ("a/b", "not allowed"),
        ("alice@home", "not allowed"),
        ("robert'); drop table user;--", "not allowed"),
        ("' or 1=1 --", "not allowed"),
        ("<script>", "not allowed"),
    ],
)
def test_bad_handles_say_why(raw: str, reason: str) -> None:
    with pytest.raises(ServiceError, match=reason) as caught:
        validate_handle(raw)
    assert caught.value.message == str(caught.value)


def test_a_trailing_newline_is_trimmed_like_other_whitespace() -> None:
    assert validate_handle("alice\n") == "alice"


# --- local accounts -----------------------------------------------------------------------


@BOTH
def test_local_user_is_created_once(session: Session, settings: Settings) -> None:
    first = get_or_create_local_user(session, " Alice ", "Alice Liddell", settings)
    again = get_or_create_local_user(session, "alice", "Someone Else", settings)
    session.commit()
    assert first.id == again.id
    assert first.handle == "alice"
    assert first.auth_subject == local_subject("alice") == "local|alice"
    assert again.display_name == "Alice Liddell"
    assert first.role == Role.CONTRIBUTOR
    assert _count(session, User) == 1


@BOTH
def test_blank_display_name_falls_back_to_the_handle(session: Session, settings: Settings) -> None:
    assert get_or_create_local_user(session, "bob", "  ", settings).display_name == "bob"


@BOTH
@pytest.mark.parametrize(
    "display_name", ["x" * 81, "Bob\u202eevil", "Bob\u200bby", "Bob\nNewline", "Bob\x00"]
)
def test_bad_display_names_are_refused(
    session: Session, settings: Settings, display_name: str
) -> None:
    with pytest.raises(ServiceError, match="Display names"):
        get_or_create_local_user(session, "bob", display_name, settings)
    assert _count(session, User) == 0


@BOTH
@pytest.mark.parametrize(
    "handle", ['robert\'); DROP TABLE "user";--', "admin", "\u0430dmin", "a b", "x" * 200]
)
def test_bad_handles_create_nothing(session: Session, settings: Settings, handle: str) -> None:
    with pytest.raises(ServiceError):
        get_or_create_local_user(session, handle, "", settings)
    assert _count(session, User) == 0


@BOTH
def test_a_handle_owned_by_a_clerk_account_is_taken(session: Session, settings: Settings) -> None:
    make_user(session, handle="alice", auth_subject="user_2clerkalice")
    with pytest.raises(ServiceError, match="taken"):
        get_or_create_local_user(session, "alice", "", settings)


# --- first sign-in for verified subjects --------------------------------------------------


@BOTH
def test_clerk_subject_gets_an_account_on_first_sight(session: Session, settings: Settings) -> None:
    user = user_for_subject(session, "user_2abc", settings, handle_hint="Alice.Smith@mail.test")
    again = user_for_subject(session, "user_2abc", settings, handle_hint="ignored")
    session.commit()
    assert user.id == again.id
    assert user.handle == "alice-smith"  # never the e-mail domain
    assert user.auth_subject == "user_2abc"


@BOTH
@pytest.mark.parametrize(
    "hint", [None, "", "admin", "\u0430lice", "ab", "!!!", "x" * 100 + "@mail.test"]
)
def test_generated_handles_are_always_valid(
    session: Session, settings: Settings, hint: str | None
) -> None:
    user = user_for_subject(session, "user_2" + secrets.token_hex(6), settings, handle_hint=hint)
    assert validate_handle(user.handle) == user.handle


@BOTH
def test_a_taken_hint_gets_a_suffix(session: Session, settings: Settings) -> None:
    make_user(session, handle="alice")
    user = user_for_subject(session, "user_2new", settings, handle_hint="alice")
    assert user.handle.startswith("alice-")
    assert validate_handle(user.handle) == user.handle


@BOTH
def test_local_subject_signs_in_as_its_handle(session: Session, settings: Settings) -> None:
    user = user_for_subject(session, "local|carol", settings, handle_hint="ignored")
    assert user.handle == "carol"


@BOTH
def test_owners_come_from_configuration(session: Session, settings: Settings) -> None:
    owners = _with_owners(settings, "user_2owner", "local|olivia")
    assert user_for_subject(session, "user_2owner", owners).role == Role.OWNER
    assert get_or_create_local_user(session, "olivia", "", owners).role == Role.OWNER
    assert user_for_subject(session, "user_2other", owners).role == Role.CONTRIBUTOR


@BOTH
def test_an_existing_user_is_promoted_at_the_next_sign_in(
    session: Session, settings: Settings
) -> None:
    user = user_for_subject(session, "user_2late", settings)
    assert user.role == Role.CONTRIBUTOR
    promoted = user_for_subject(session, "user_2late", _with_owners(settings, "user_2late"))
    user_for_subject(session, "user_2late", _with_owners(settings, "user_2late"))
    session.commit()
    assert promoted.role == Role.OWNER
    [event] = _role_events(session, user)
    assert event.actor_id is None
    assert event.detail == {"role": "owner", "previous": "contributor"}
    # Removing the subject from configuration does not silently demote: that is a grant.
    assert user_for_subject(session, "user_2late", settings).role == Role.OWNER


@BOTH
def test_concurrent_first_sign_ins_make_one_account(engine: Engine, settings: Settings) -> None:
    """The loser of an insert race adopts the winner's row instead of failing the sign-in."""
    results: dict[str, str] = {}

    def second_sign_in() -> None:
        with Session(engine, expire_on_commit=False) as second:
            results["id"] = user_for_subject(second, "user_2race", settings, handle_hint="b").id
            second.commit()

    with Session(engine, expire_on_commit=False) as first:
        winner = User(handle="racer", display_name="racer", auth_subject="user_2race")
        first.add(winner)
        first.flush()  # holds the unique index entry until commit
        thread = threading.Thread(target=second_sign_in)
        thread.start()
        time.sleep(0.5)  # let the second sign-in reach its blocked insert
        first.commit()
        thread.join(timeout=30)
    assert results["id"] == winner.id
    with Session(engine) as check:
        assert _count(check, User) == 1


# --- role grants --------------------------------------------------------------------------


@BOTH
def test_operator_grants_a_role_and_it_is_audited(session: Session, settings: Settings) -> None:
    user = make_user(session, handle="dana")
    granted = grant_role(session, "Dana", "moderator")
    grant_role(session, "dana", Role.MODERATOR)  # no change, no second event
    session.commit()
    assert granted.id == user.id
    assert granted.role == Role.MODERATOR
    [event] = _role_events(session, user)
    assert event.actor_id is None
    assert event.subject_type == "user"
    assert event.detail == {"role": "moderator", "previous": "contributor"}


@BOTH
def test_grant_errors_are_clear(session: Session) -> None:
    make_user(session, handle="erin")
    with pytest.raises(ServiceError, match="Unknown role 'emperor'"):
        grant_role(session, "erin", "emperor")
    with pytest.raises(ServiceError, match="No account has the handle"):
        grant_role(session, "nobody", Role.REVIEWER)


@BOTH
def test_moderator_may_make_reviewers_only(session: Session) -> None:
    moderator = make_user(session, role=Role.MODERATOR)
    make_user(session, handle="frank")
    make_user(session, handle="olga", role=Role.OWNER)
    reviewer = grant_role(session, "frank", Role.REVIEWER, actor=moderator)
    assert reviewer.role == Role.REVIEWER
    [event] = _role_events(session, reviewer)
    assert event.actor_id == moderator.id
    with pytest.raises(Forbidden):
        grant_role(session, "frank", Role.MODERATOR, actor=moderator)
    with pytest.raises(Forbidden):
        grant_role(session, "olga", Role.CONTRIBUTOR, actor=moderator)


@BOTH
def test_owner_may_grant_anything(session: Session) -> None:
    owner = make_user(session, role=Role.OWNER)
    make_user(session, handle="gina")
    assert grant_role(session, "gina", Role.MODERATOR, actor=owner).role == Role.MODERATOR


@BOTH
@pytest.mark.parametrize(
    ("role", "status"),
    [
        (Role.CONTRIBUTOR, AccountStatus.ACTIVE),
        (Role.REVIEWER, AccountStatus.ACTIVE),
        (Role.OWNER, AccountStatus.SUSPENDED),
    ],
)
def test_others_may_not_grant(session: Session, role: Role, status: AccountStatus) -> None:
    actor = make_user(session, role=role, status=status)
    target = make_user(session, handle="hank")
    with pytest.raises(Forbidden, match="not allowed"):
        grant_role(session, "hank", Role.REVIEWER, actor=actor)
    assert target.role == Role.CONTRIBUTOR
    assert _role_events(session, target) == []


# --- the signed-in user for a request -----------------------------------------------------


@BOTH
def test_current_user_from_a_session_cookie(session: Session, settings: Settings) -> None:
    token = LocalIssuer(settings).mint(local_subject("ivy"))
    verifier = build_verifier(settings)
    user = current_user(session, verifier, {"cookie": f"__session={token}"}, settings)
    assert user is not None
    assert user.handle == "ivy"
    assert current_user(session, verifier, {}, settings) is None
    assert current_user(session, verifier, {"Authorization": "Bearer junk"}, settings) is None
    assert _count(session, User) == 1
