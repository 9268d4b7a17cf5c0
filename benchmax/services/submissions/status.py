"""What a contributor sees about their own Tests: plain statuses, reasons and next actions.

``reason`` comes from ``Test.failure_reason`` for every state, so whoever moves a Test into
a state (the pipeline, or moderation removing it) explains it there and it shows up here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from sqlmodel import Session, col, select

from benchmax.models import EvidenceFile, EvidenceState, ReviewState, Test, TestState, User
from benchmax.models._base import as_utc
from benchmax.services.dates import JsonReady
from benchmax.services.submissions.expiry import draft_expires_at
from benchmax.services.submissions.records import get_own_test
from benchmax.settings import Settings

Action = Literal["resume", "fix", "retry", "view", ""]

_PLAIN = {
    TestState.DRAFT: "Draft",
    TestState.PROCESSING: "Processing",
    TestState.NEEDS_ATTENTION: "Needs attention",
    TestState.FAILED: "Processing failed",
    TestState.REMOVED: "Removed",
}
_REVIEWED = {
    ReviewState.AWAITING: "Awaiting review",
    ReviewState.REVIEWED: "Reviewed",
    ReviewState.RANKED: "Ranked",
}
_ACTIONS: dict[TestState, Action] = {
    TestState.DRAFT: "resume",
    TestState.NEEDS_ATTENTION: "fix",
    TestState.FAILED: "retry",
    TestState.PUBLIC: "view",
}
_PROCESSING_REASON = "Safety checks are running; this usually takes a few seconds."


def status_label(state: str, review_state: str) -> str:
    """The one plain word for where a Test stands, wherever a status is shown."""
    if state == TestState.PUBLIC:
        return _REVIEWED[ReviewState(review_state)]
    return _PLAIN[TestState(state)]


def plain_status(test: Test) -> str:
    return status_label(test.state, test.review_state)


def _reason(test: Test) -> str:
    if test.state == TestState.PROCESSING:
        return _PROCESSING_REASON
    return test.failure_reason


@dataclass(frozen=True)
class FileStatus:
    id: str
    name: str
    kind: str
    state: str
    reason: str
    size_bytes: int
    sha256: str = ""
    """Set once the scan approved the file; the wizard uses it to spot a file added twice."""


@dataclass(frozen=True)
class StatusView(JsonReady):
    test_id: str
    state: str
    plain_status: str
    reason: str
    files: list[FileStatus] = field(default_factory=list)
    public_url: str | None = None


@dataclass(frozen=True)
class MyTestRow:
    id: str
    title: str
    plain_status: str
    reason: str
    action: Action
    updated_at: datetime
    expires_at: datetime | None = None
    """When an untouched draft will be deleted; None for anything else."""


def processing_status(session: Session, user: User, test_id: str) -> StatusView:
    """Where the user's Test stands, file by file (removed files are history, not listed)."""
    test = get_own_test(session, user, test_id)
    files = session.exec(
        select(EvidenceFile)
        .where(EvidenceFile.test_id == test.id, col(EvidenceFile.state) != EvidenceState.REMOVED)
        .order_by(col(EvidenceFile.position), col(EvidenceFile.created_at))
    ).all()
    return StatusView(
        test_id=test.id,
        state=str(test.state),
        plain_status=plain_status(test),
        reason=_reason(test),
        files=[
            FileStatus(
                id=file.id,
                name=file.safe_name,
                kind=str(file.kind or ""),
                state=str(file.state),
                reason=file.block_reason,
                size_bytes=file.size_bytes,
                sha256=file.sha256,
            )
            for file in files
        ],
        public_url=f"/tests/{test.id}" if test.state == TestState.PUBLIC else None,
    )


def my_tests(session: Session, user: User, settings: Settings) -> list[MyTestRow]:
    """Every Test of the user, drafts and removed ones included, newest activity first."""
    tests = session.exec(
        select(Test)
        .where(Test.contributor_id == user.id)
        .order_by(col(Test.updated_at).desc(), col(Test.id))
    ).all()
    return [
        MyTestRow(
            id=test.id,
            title=test.display_title,
            plain_status=plain_status(test),
            reason=_reason(test),
            action=_ACTIONS.get(TestState(test.state), ""),
            updated_at=as_utc(test.updated_at),
            expires_at=(
                draft_expires_at(test.updated_at, settings)
                if test.state == TestState.DRAFT
                else None
            ),
        )
        for test in tests
    ]
