"""Each stored free-text input refuses a pasted key with the wizard's kind of message.

One test per input: the message names the field and the line, never quotes the key, and
nothing was written (the session is rolled back only after checking no row appeared).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, func, select

from benchmax.adapters.storage.local import LocalStorage
from benchmax.models import (
    ApiToken,
    AuditEvent,
    Dispute,
    EvidenceFile,
    Job,
    JobState,
    ModerationDecision,
    Report,
    Review,
    Role,
    User,
)
from benchmax.services import accounts, submissions, tokens
from benchmax.services.errors import Invalid, ServiceError
from benchmax.services.moderation import (
    disputes,
    holds,
    reports,
    reviews,
    takedowns,
)
from benchmax.services.moderation import (
    label_decisions as labels,
)
from benchmax.services.moderation import roles as moderation_roles
from benchmax.services.operations import discard_job, requeue_job
from benchmax.services.submissions.idempotency import checked_idempotency_digest
from benchmax.settings import Settings
from tests.support.factories import make_review, make_stored_evidence, make_test, make_user
from tests.unit.safety.corpus import canary_access_key_id, canary_key

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
KEY = canary_key()


def _text(line: int = 2) -> str:
    """A realistic paste: a sentence, then the key on ``line``."""
    return "Here is what I used.\n" * (line - 1) + f"key {KEY} in the header"


def _refused(error: BaseException, where: str, line: int = 2) -> None:
    message = str(getattr(error, "message", error))
    assert message.startswith(f"Line {line} of the {where} looks like an Anthropic API key."), (
        message
    )
    assert "never needs your model keys" in message
    assert KEY[13:45] not in message
    assert KEY[13:45] not in repr(error.args)


def _count(session: Session, model: type) -> int:
    return session.exec(select(func.count()).select_from(model)).one()


@pytest.fixture
def people(session: Session) -> dict[str, User]:
    found = {
        "contributor": make_user(session),
        "reviewer": make_user(session, role=Role.REVIEWER),
        "moderator": make_user(session, role=Role.MODERATOR),
        "owner": make_user(session, role=Role.OWNER),
    }
    session.commit()
    return found


@BOTH
def test_review_reasoning(session: Session, people: dict[str, User]) -> None:
    test = make_test(session, people["contributor"])
    with pytest.raises(ServiceError) as refused:
        reviews.add_review(session, people["reviewer"], test.id, 40, _text())
    _refused(refused.value, "review reasoning")
    assert refused.value.field == "reasoning"
    assert _count(session, Review) == 0


@BOTH
def test_report_details(session: Session, people: dict[str, User]) -> None:
    test = make_test(session, people["contributor"])
    with pytest.raises(ServiceError) as refused:
        reports.create_report(session, people["reviewer"], test.id, "other", _text(), per_hour=9)
    _refused(refused.value, "report details")
    assert refused.value.field == "details"
    assert _count(session, Report) == 0


@BOTH
def test_dispute_reason(session: Session, people: dict[str, User]) -> None:
    test = make_test(session, people["contributor"])
    review = make_review(session, test, people["reviewer"])
    with pytest.raises(ServiceError) as refused:
        disputes.open_dispute(session, people["contributor"], review.id, _text(), per_hour=9)
    _refused(refused.value, "dispute reason")
    assert _count(session, Dispute) == 0


def _decisions(
    session: Session, people: dict[str, User], storage: LocalStorage
) -> dict[str, Callable[[str], Any]]:
    """Every moderation decision, each taking only the reason."""
    moderator, owner = people["moderator"], people["owner"]
    test = make_test(session, people["contributor"])
    evidence = make_stored_evidence(session, storage, test, b"bytes")
    report = reports.create_report(session, people["reviewer"], test.id, "spam", "", per_hour=9)
    review = make_review(session, test, people["reviewer"])
    dispute = disputes.open_dispute(
        session, people["contributor"], review.id, "The review is wrong.", per_hour=9
    )
    handle = people["reviewer"].handle
    return {
        "remove": lambda why: takedowns.remove_test(session, moderator, test.id, why),
        "restore": lambda why: takedowns.restore_test(session, moderator, test.id, why),
        "block": lambda why: takedowns.block_evidence(session, moderator, evidence.id, why),
        "resolve": lambda why: reports.decide_report(session, moderator, report.id, "resolve", why),
        "uphold": lambda why: disputes.decide_dispute(
            session, moderator, dispute.id, "uphold", why
        ),
        "overturn": lambda why: disputes.decide_dispute(
            session, moderator, dispute.id, "overturn", why, 50
        ),
        "keep": lambda why: holds.decide_hold(session, moderator, test.id, "keep", why),
        "map": lambda why: labels.map_label(session, moderator, "model", "x", "gpt-5", why),
        "leave": lambda why: labels.leave_label_declared(session, moderator, "model", "x", why),
        "role": lambda why: moderation_roles.change_role(session, owner, handle, "moderator", why),
        "suspend": lambda why: moderation_roles.suspend(session, owner, handle, why),
        "reinstate": lambda why: moderation_roles.reinstate(session, owner, handle, why),
    }


@BOTH
def test_every_moderation_reason(session: Session, people: dict[str, User], tmp_path: Path) -> None:
    actions = _decisions(session, people, LocalStorage(tmp_path / "objects"))
    session.commit()
    for name, act in actions.items():
        with pytest.raises(ServiceError) as refused:
            act(_text())
        _refused(refused.value, "reason")
        assert refused.value.field == "reason", name
    assert _count(session, ModerationDecision) == 0


@pytest.mark.parametrize("decide", [labels.map_label, labels.leave_label_declared])
def test_a_label_decision_refuses_a_key_as_the_label(
    session: Session, people: dict[str, User], decide: Callable[..., Any]
) -> None:
    args = ("gpt-5",) if decide is labels.map_label else ()
    with pytest.raises(ServiceError) as refused:
        decide(session, people["moderator"], "model", f"x\n{KEY}", *args, "A label decision.")
    _refused(refused.value, "label")
    assert refused.value.field == "label"


@pytest.mark.parametrize("act", [requeue_job, discard_job])
def test_operations_reasons(session: Session, act: Callable[..., Job]) -> None:
    owner = make_user(session, role=Role.OWNER)
    job = Job(kind="scan_evidence", subject_id="ev1", state=JobState.DEAD, attempts=5)
    session.add(job)
    session.commit()
    for actor in (owner, None):  # the page and the CLI
        with pytest.raises(Invalid) as refused:
            act(session, job.id, actor=actor, reason=_text())
        _refused(refused.value, "reason")
    assert session.get(Job, job.id).state == JobState.DEAD  # type: ignore[union-attr]
    assert _count(session, AuditEvent) == 0


@BOTH
def test_display_name_and_handle(session: Session, settings: Settings) -> None:
    with pytest.raises(ServiceError) as refused:
        accounts.get_or_create_local_user(session, "ada", KEY[:80], settings)
    _refused(refused.value, "display name", line=1)
    access_key = canary_access_key_id()
    with pytest.raises(ServiceError) as refused:
        accounts.get_or_create_local_user(session, access_key, "", settings)
    message = refused.value.message
    assert message.startswith("Line 1 of the handle looks like an AWS access key ID.")
    assert access_key.lower() not in message.lower()
    assert _count(session, User) == 0


def test_an_identity_providers_hint_that_is_a_key_is_not_made_a_handle(
    session: Session, settings: Settings
) -> None:
    access_key = canary_access_key_id()
    user = accounts.user_for_subject(session, "user_2abc", settings, handle_hint=access_key)
    assert user.handle.startswith("user-")
    assert access_key.lower() not in (user.handle + user.display_name).lower()


def test_unknown_handles_are_never_echoed(session: Session, people: dict[str, User]) -> None:
    access_key = canary_access_key_id()
    with pytest.raises(ServiceError, match="No account has that handle"):
        accounts.grant_role(session, access_key, Role.REVIEWER)
    with pytest.raises(ServiceError) as refused:
        moderation_roles.suspend(session, people["owner"], access_key, "Spamming the feed.")
    assert refused.value.message == "No account has that handle."
    with pytest.raises(ServiceError, match="No account has the handle 'nobody-here'"):
        accounts.grant_role(session, "nobody-here", Role.REVIEWER)


@BOTH
def test_token_name(session: Session, people: dict[str, User]) -> None:
    with pytest.raises(ServiceError) as refused:
        tokens.create_token(session, people["contributor"], KEY)
    _refused(refused.value, "token name", line=1)
    assert _count(session, ApiToken) == 0


@BOTH
@pytest.mark.parametrize(
    "name", [f"{KEY}.png", f"C:\\Users\\me\\{KEY}\\shot.png", f"runs/{KEY}/shot.png"]
)
def test_evidence_file_name_as_uploaded(
    session: Session, people: dict[str, User], tmp_path: Path, name: str, settings: Settings
) -> None:
    """The whole name counts: the directory part is dropped from the safe name but kept in
    the original name, so a key there is refused too."""
    storage = LocalStorage(tmp_path / "objects")
    test = submissions.create_draft(session, people["contributor"], settings)
    with pytest.raises(ServiceError) as refused:
        submissions.add_file(
            session, storage, people["contributor"], test.id, name, [b"x"], settings=settings
        )
    _refused(refused.value, "file name", line=1)
    assert (refused.value.code, refused.value.field) == ("secret_detected", "files")
    assert _count(session, EvidenceFile) == 0
    assert list(storage.list()) == []


def test_idempotency_key_header() -> None:
    with pytest.raises(ServiceError) as refused:
        checked_idempotency_digest(KEY)
    _refused(refused.value, "Idempotency-Key header", line=1)
    digest = checked_idempotency_digest(" run-42 ")
    assert len(digest) == 64
    assert "run-42" not in digest
