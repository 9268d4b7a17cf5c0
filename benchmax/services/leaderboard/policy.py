"""Which Tests and reviews count: the versioned policy and the eligibility rules it names.

A policy is an append-only row: changing the rules means a new version, and every snapshot
records the version (and the parameters) it applied. Until an operator sets one, version 1
counts admin and approved-reviewer reviews and no AI judge snapshot; AI reviews start
counting once an operator names the judge snapshots they trust.

Eligible (``ELIGIBILITY_ID``): public, not removed, not a sample Test, no open moderation
hold, and at least one *current* review under the policy. A review is current when no other
review corrects it; a correction replaces what it corrects even when the correction itself
does not count (its kind is not in the policy), so a correction can never leave the old
score standing. Each review row counts once — an AI review's row already carries the median
of its samples.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select as select_columns
from sqlmodel import Session, col, select

from benchmax.models import (
    CaseState,
    LeaderboardPolicy,
    ModerationHold,
    Review,
    ReviewerKind,
    Test,
    TestState,
)
from benchmax.services.dto import from_row
from benchmax.services.errors import Invalid
from benchmax.services.leaderboard.scoring import FORMULA_ID

ELIGIBILITY_ID = "public-unheld-not-sample-reviewed-v1"
PRIOR_MEAN_RULE = "mean-of-counted-scores"
DEFAULT_PRIOR_WEIGHT = 3
DEFAULT_KINDS = tuple(kind.value for kind in ReviewerKind)
MAX_PRIOR_WEIGHT = 1000


class PolicyError(Invalid):
    """A policy change that cannot be recorded; ``field`` names the setting at fault."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__("invalid_policy", message, field)


def _csv(values: Iterable[str]) -> str:
    return ",".join(sorted({value.strip() for value in values if value.strip()}))


def _split(text: str) -> list[str]:
    return [value for value in text.split(",") if value]


@dataclass(frozen=True)
class Policy:
    id: str
    version: int
    formula: str
    prior_weight: int
    prior_mean_rule: str
    review_kinds: tuple[str, ...]
    judge_snapshot_ids: tuple[str, ...]
    eligibility: str

    @classmethod
    def of(cls, row: LeaderboardPolicy) -> Policy:
        """The row's columns, with the two comma-separated lists split."""
        return from_row(
            cls,
            row,
            review_kinds=tuple(_split(row.review_kinds)),
            judge_snapshot_ids=tuple(_split(row.judge_snapshot_ids)),
        )

    def counts(self, kind: str, judge_snapshot_id: str | None) -> bool:
        if kind not in self.review_kinds:
            return False
        return kind != ReviewerKind.AI or (judge_snapshot_id or "") in self.judge_snapshot_ids

    def describe(self, prior_mean_bp: int, cutoff: str) -> dict[str, Any]:
        """The policy as a snapshot records it (integers and strings only)."""
        return {
            "policy_id": self.id,
            "policy_version": self.version,
            "formula": self.formula,
            "prior_weight": self.prior_weight,
            "prior_mean_rule": self.prior_mean_rule,
            "prior_mean_bp": prior_mean_bp,
            "review_kinds": list(self.review_kinds),
            "judge_snapshot_ids": list(self.judge_snapshot_ids),
            "eligibility": self.eligibility,
            "cutoff": cutoff,
        }


def current_policy(session: Session) -> Policy:
    """The newest policy version, recording version 1 the first time one is needed."""
    row = session.exec(
        select(LeaderboardPolicy).order_by(col(LeaderboardPolicy.version).desc()).limit(1)
    ).first()
    if row is None:
        row = _append(session, 1, DEFAULT_KINDS, (), DEFAULT_PRIOR_WEIGHT, "default")
    return Policy.of(row)


def _append(
    session: Session,
    version: int,
    kinds: Iterable[str],
    judge_snapshot_ids: Iterable[str],
    prior_weight: int,
    created_by: str,
) -> LeaderboardPolicy:
    row = LeaderboardPolicy(
        version=version,
        formula=FORMULA_ID,
        prior_weight=prior_weight,
        prior_mean_rule=PRIOR_MEAN_RULE,
        review_kinds=_csv(kinds),
        judge_snapshot_ids=_csv(judge_snapshot_ids),
        eligibility=ELIGIBILITY_ID,
        created_by=created_by[:64],
    )
    session.add(row)
    session.flush()
    return row


def set_policy(
    session: Session,
    kinds: Iterable[str],
    judge_snapshot_ids: Iterable[str],
    prior_weight: int,
    created_by: str,
) -> Policy:
    """Record a new policy version; the next snapshot applies it."""
    clean_kinds = {kind.strip().lower() for kind in kinds if kind.strip()}
    unknown = clean_kinds - {kind.value for kind in ReviewerKind}
    if unknown or not clean_kinds:
        allowed = ", ".join(kind.value for kind in ReviewerKind)
        raise PolicyError(f"review kinds must be one or more of: {allowed}", "review_kinds")
    judges = [value.strip() for value in judge_snapshot_ids if value.strip()]
    if any(len(value) > 64 or not value.isalnum() for value in judges):
        raise PolicyError(
            "judge snapshot ids are letters and digits, at most 64 characters",
            "judge_snapshot_ids",
        )
    if not 0 <= prior_weight <= MAX_PRIOR_WEIGHT:
        raise PolicyError(
            f"the prior weight m is a whole number from 0 to {MAX_PRIOR_WEIGHT}", "prior_weight"
        )
    version = current_policy(session).version + 1
    return Policy.of(_append(session, version, clean_kinds, judges, prior_weight, created_by))


@dataclass(frozen=True)
class Counted:
    """One Test's reviews that count under a policy (in no particular order)."""

    scores: tuple[int, ...]
    review_ids: tuple[str, ...]


def counted_reviews(
    session: Session,
    policy: Policy,
    test_ids: Iterable[str] | None = None,
    cutoff: datetime | None = None,
) -> dict[str, Counted]:
    """Current, counting reviews per Test (every eligible Test, or just ``test_ids``).

    One pass over the reviews of the candidate Tests: corrections and open holds are resolved
    in memory, so the cost is one scan whatever the number of Tests.
    """
    held = open_hold_test_ids(session)
    statement = (
        select_columns(
            col(Review.id),
            col(Review.test_id),
            col(Review.score),
            col(Review.reviewer_kind),
            col(Review.judge_snapshot_id),
            col(Review.corrects_review_id),
        )
        .join(Test, col(Test.id) == Review.test_id)
        .where(*eligible_test_conditions(cutoff))
    )
    if cutoff is not None:
        statement = statement.where(col(Review.created_at) <= cutoff)
    if test_ids is not None:
        statement = statement.where(col(Review.test_id).in_(list(test_ids)))
    rows = session.execute(statement).all()
    superseded = {row[5] for row in rows if row[5]}
    scores: dict[str, list[int]] = defaultdict(list)
    ids: dict[str, list[str]] = defaultdict(list)
    for review_id, test_id, score, kind, judge, _corrects in rows:
        if test_id in held or review_id in superseded:
            continue
        if policy.counts(str(kind), judge):
            scores[test_id].append(score)
            ids[test_id].append(review_id)
    return {test_id: Counted(tuple(scores[test_id]), tuple(ids[test_id])) for test_id in scores}


def open_hold_test_ids(session: Session) -> set[str]:
    """Tests under an open moderation hold (few: holds are exceptions)."""
    return set(
        session.exec(
            select(ModerationHold.test_id).where(col(ModerationHold.state) == CaseState.OPEN)
        ).all()
    )


def eligible_test_conditions(cutoff: datetime | None = None) -> list[Any]:
    """SQL conditions on ``Test`` for everything but holds and "has a counting review"
    (``counted_reviews`` applies those two)."""
    conditions: list[Any] = [
        col(Test.state) == TestState.PUBLIC,
        col(Test.is_sample).is_(False),
        col(Test.published_at).is_not(None),
    ]
    if cutoff is not None:
        conditions.append(col(Test.published_at) <= cutoff)
    return conditions
