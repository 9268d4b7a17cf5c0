"""A public Test in brief — title, contributor, declared setup, evidence — for showcase lists.

The leaderboard and the comparison groups list Tests the same way; both read them with
``summary_rows`` (the Test, its contributor and its approved thumbnail in one query) and turn
each row into a ``TestSummary``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_
from sqlalchemy.orm import load_only
from sqlmodel import Session, col, select

from benchmax.models import EvidenceFile, EvidenceState, Test, User
from benchmax.models._base import as_utc

SummaryRow = tuple[Test, str, str, str | None]
_LISTED = (
    "id", "title", "prompt", "prompt_key", "state", "contributor_id", "model_label",
    "model_version_label", "harness_label", "reasoning_label", "attempts", "evidence_kinds",
    "thumbnail_evidence_id", "is_sample", "published_at",
)  # fmt: skip


@dataclass(frozen=True)
class TestSummary:
    __test__ = False  # not a pytest class

    id: str
    title: str
    contributor_handle: str
    contributor_display_name: str
    model_label: str
    model_version_label: str
    harness_label: str
    reasoning_label: str
    attempts: int | None
    evidence_kinds: list[str]
    thumbnail_evidence_id: str | None
    thumbnail_safe_name: str | None
    is_sample: bool
    published_at: datetime | None
    # The comparison group: every public Test of the same prompt, at ``group_url``.
    prompt_key: str
    group_url: str


def group_url(prompt_key: str) -> str:
    """The comparison group page of a prompt key (its JSON is at ``/api/v1`` + this)."""
    return f"/prompts/{prompt_key}"


# The join that finds a Test's thumbnail only once the file has been approved.
APPROVED_THUMBNAIL = and_(
    col(EvidenceFile.id) == Test.thumbnail_evidence_id,
    col(EvidenceFile.state) == EvidenceState.APPROVED,
)


def summary_rows(session: Session, *conditions: Any) -> list[SummaryRow]:
    """(Test, handle, display name, approved thumbnail's safe name) for Tests matching."""
    return list(
        session.exec(
            select(Test, User.handle, User.display_name, EvidenceFile.safe_name)
            .join(User, col(User.id) == Test.contributor_id)
            .outerjoin(EvidenceFile, APPROVED_THUMBNAIL)
            .where(*conditions)
            # Outputs, notes and settings can be large and no list shows them.
            .options(load_only(*(getattr(Test, name) for name in _LISTED)))
        ).all()
    )


def summaries_by_id(session: Session, test_ids: Iterable[str]) -> dict[str, SummaryRow]:
    ids = list(test_ids)
    return {row[0].id: row for row in summary_rows(session, col(Test.id).in_(ids))} if ids else {}


def summary_values(
    test: Any, title: str, handle: str, display_name: str, thumb_name: str | None
) -> dict[str, Any]:
    """A ``TestSummary``'s values from a ``Test`` or a row of the same-named columns."""
    return {
        "id": test.id,
        "title": title,
        "contributor_handle": handle,
        "contributor_display_name": display_name,
        "model_label": test.model_label,
        "model_version_label": test.model_version_label,
        "harness_label": test.harness_label,
        "reasoning_label": test.reasoning_label,
        "attempts": test.attempts,
        "evidence_kinds": [kind for kind in test.evidence_kinds.split(",") if kind],
        # Only an approved file is a thumbnail: the join finds no name for any other.
        "thumbnail_evidence_id": test.thumbnail_evidence_id if thumb_name else None,
        "thumbnail_safe_name": thumb_name,
        "is_sample": test.is_sample,
        "published_at": as_utc(test.published_at) if test.published_at else None,
        "prompt_key": test.prompt_key,
        "group_url": group_url(test.prompt_key),
    }


def summarise(row: SummaryRow) -> TestSummary:
    test, handle, display_name, thumb_name = row
    return TestSummary(**summary_values(test, test.display_title, handle, display_name, thumb_name))
