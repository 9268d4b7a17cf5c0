"""Drafts: created, resumed and saved as the contributor goes through the wizard.

Functions flush but never commit: the caller owns the transaction, so the API can create,
fill and submit a Test in one transaction that a refusal rolls back entirely.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlmodel import Session, col, select

from benchmax.models import Test, TestState, User
from benchmax.models._base import is_public_id, utcnow
from benchmax.services.catalog.linking import link_declared_setup
from benchmax.services.errors import Invalid, NotFound
from benchmax.services.submissions.account_limits import check_open_drafts
from benchmax.services.submissions.fields import clean_fields
from benchmax.services.submissions.records import editable_test, require_writer
from benchmax.settings import Settings

FIRST_STEP, LAST_STEP = 1, 5


def create_draft(
    session: Session, user: User, settings: Settings, *, submitted_at_once: bool = False
) -> Test:
    """A new, empty, private draft owned by ``user``.

    The account's cap on open drafts applies unless the caller submits the draft in the same
    transaction (the submission API), where it is never left open.
    """
    require_writer(user, "submit Tests")
    if not submitted_at_once:
        check_open_drafts(session, user, settings)
    test = Test(
        contributor_id=user.id,
        prompt="",
        model_label="",
        harness_label="",
        reasoning_label="",
        state=TestState.DRAFT,
    )
    session.add(test)
    session.flush()
    return test


def latest_draft(session: Session, user: User) -> Test | None:
    """The draft the user touched last, so /submit resumes where they were."""
    return session.exec(
        select(Test)
        .where(Test.contributor_id == user.id, Test.state == TestState.DRAFT)
        .order_by(col(Test.updated_at).desc(), col(Test.id))
        .limit(1)
    ).first()


def save_draft(
    session: Session,
    user: User,
    test_id: str,
    fields: Mapping[str, str],
    *,
    step: int | None = None,
) -> Test:
    """Store ``fields`` (any subset of ``DRAFT_FIELDS``) on an editable Test.

    Everything is validated and secret-checked before anything is assigned, so a refused
    call leaves the Test exactly as it was.
    """
    test = editable_test(session, user, test_id)
    if step is not None and not FIRST_STEP <= step <= LAST_STEP:
        raise Invalid("invalid_step", f"The wizard step is {FIRST_STEP} to {LAST_STEP}.", "step")
    cleaned = clean_fields(fields)
    for name, value in cleaned.items():
        setattr(test, name, value)
    if step is not None:
        test.wizard_step = step
    test.updated_at = utcnow()
    link_declared_setup(session, test)
    session.add(test)
    session.flush()
    return test


def draft_with_prompt_of(session: Session, user: User, settings: Settings, test_id: str) -> Test:
    """A new draft holding the prompt of the public Test ``test_id`` and nothing else of it:
    "Try this prompt with your setup", so the new Test joins that prompt's group. The setup,
    output and evidence are the contributor's own to declare.

    Only a public Test's prompt is copied; a hidden, removed or unknown one reads the same.
    """
    source = session.get(Test, test_id) if is_public_id(test_id) else None
    if source is None or source.state != TestState.PUBLIC:
        raise NotFound(
            "prompt_source_not_public",
            "That Test is not public (it may have been hidden or removed), so its prompt "
            "cannot be copied. Start a new Test with a prompt of your own.",
        )
    draft = create_draft(session, user, settings)
    return save_draft(session, user, draft.id, {"prompt": source.prompt}, step=FIRST_STEP)
