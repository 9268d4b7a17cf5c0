"""Same-prompt comparison groups: every public Test that gave one prompt to a different setup.

A group is the public Tests sharing a prompt key, plus those of keys a moderator joined to it
by an alias decision. Within a group Tests are ordered by the showcase's own shrunk score
(the current policy's counted reviews, ``m`` from the policy, ``C`` the mean of the group's
counted scores), so one lucky review does not put a Test on top here either; Tests without a
counted review follow, newest first. Groups are never compared with each other.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import func, or_
from sqlmodel import Session, col, select

from benchmax.models import (
    ModerationAction,
    ModerationDecision,
    PromptAlias,
    Test,
    TestState,
    User,
)
from benchmax.models._base import as_utc, is_public_id
from benchmax.services.dates import JsonReady, json_ready
from benchmax.services.errors import Conflict, Invalid, NotFound
from benchmax.services.feed_order import MOST_REVIEWED, NEWEST
from benchmax.services.leaderboard.intervals import (
    band_text,
    half_width_bp,
    interval,
    pooled_variance_bp2,
    rank_bands,
)
from benchmax.services.leaderboard.policy import counted_reviews, current_policy
from benchmax.services.leaderboard.scoring import (
    bayesian_score_bp,
    mean_bp,
    median_text,
    points_text,
)
from benchmax.services.moderation.policy import clean_reason, require_admin
from benchmax.services.moderation.records import record_decision
from benchmax.services.prompts.similar import similar_keys
from benchmax.services.summaries import SummaryRow, TestSummary, summarise, summary_rows

_KEY = re.compile(r"[0-9a-f]{64}")
MAX_GROUP_KEYS = 50
_PUBLIC = col(Test.state) == TestState.PUBLIC


def is_prompt_key(value: str) -> bool:
    return bool(_KEY.fullmatch(value))


def joined_keys(session: Session, key: str) -> list[str]:
    """``key`` and every key joined to it by alias decisions, directly or through others."""
    seen, frontier = {key}, {key}
    while frontier and len(seen) < MAX_GROUP_KEYS:
        rows = session.exec(
            select(PromptAlias.key_a, PromptAlias.key_b).where(
                or_(col(PromptAlias.key_a).in_(frontier), col(PromptAlias.key_b).in_(frontier))
            )
        ).all()
        linked = {k for pair in rows for k in pair} - seen
        seen |= linked
        frontier = linked
    return sorted(seen)


def group_size(session: Session, key: str) -> int:
    """How many public Tests share this prompt (alias-joined keys included)."""
    keys = joined_keys(session, key)
    return int(
        session.exec(
            select(func.count()).select_from(Test).where(_PUBLIC, col(Test.prompt_key).in_(keys))
        ).one()
    )


@dataclass(frozen=True)
class GroupMember(JsonReady):
    test: TestSummary
    prompt_key: str
    review_count: int
    median: str
    score: str
    # The score's 95% interval and the rank band among the group's scored members, from the
    # same model as the leaderboard's (benchmax.services.leaderboard.intervals); "" and 0
    # for a member with no counted review.
    score_low: str
    score_high: str
    band_first: int
    band_last: int
    band: str


@dataclass(frozen=True)
class SimilarGroup:
    prompt_key: str
    similarity_percent: int
    title: str
    size: int


@dataclass(frozen=True)
class AliasEntry:
    other_key: str
    reason: str
    created_at: datetime

    @classmethod
    def seen_from(cls, key: str, row: PromptAlias) -> AliasEntry:
        """The alias as the group of ``key`` lists it: by the key it joins ``key`` to."""
        other = row.key_b if row.key_a == key else row.key_a
        return cls(other_key=other, reason=row.reason, created_at=as_utc(row.created_at))


@dataclass(frozen=True)
class PromptGroup:
    key: str
    keys: list[str]
    prompt: str
    members: list[GroupMember] = field(default_factory=list)
    similar: list[SimilarGroup] = field(default_factory=list)
    aliases: list[AliasEntry] = field(default_factory=list)
    prior_mean_bp: int = 0
    prior_weight: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "keys": self.keys,
            "prompt": self.prompt,
            "members": [member.to_json() for member in self.members],
            "similar": [json_ready(item) for item in self.similar],
            "aliases": [json_ready(item) for item in self.aliases],
            "prior_mean_bp": self.prior_mean_bp,
            "prior_weight": self.prior_weight,
        }


def prompt_headline(prompt: str) -> str:
    """A group's name: its prompt's first non-empty line, never one Test's own title."""
    line = next((line.strip() for line in prompt.splitlines() if line.strip()), "")
    return (line[:117] + "…") if len(line) > 120 else (line or "Empty prompt")


def _titles_and_sizes(session: Session, keys: Iterable[str]) -> dict[str, tuple[str, int]]:
    """Each key's headline (from one of its public Tests) and its number of public Tests."""
    wanted = list(keys)
    if not wanted:
        return {}
    sizes = dict(
        session.exec(
            select(Test.prompt_key, func.count())
            .where(_PUBLIC, col(Test.prompt_key).in_(wanted))
            .group_by(col(Test.prompt_key))
        ).all()
    )
    firsts = dict(
        session.exec(
            select(Test.prompt_key, func.min(Test.id))
            .where(_PUBLIC, col(Test.prompt_key).in_(wanted))
            .group_by(col(Test.prompt_key))
        ).all()
    )
    tests = {t.id: t for t in session.exec(select(Test).where(col(Test.id).in_(firsts.values())))}
    return {
        key: (prompt_headline(tests[firsts[key]].prompt), int(sizes[key]))
        for key in firsts
        if key in sizes
    }


def _aliases(session: Session, key: str) -> list[AliasEntry]:
    rows = session.exec(
        select(PromptAlias)
        .where(or_(col(PromptAlias.key_a) == key, col(PromptAlias.key_b) == key))
        .order_by(col(PromptAlias.created_at))
    ).all()
    return [AliasEntry.seen_from(key, row) for row in rows]


def has_group(session: Session, key: str) -> bool:
    """Whether ``key`` has a group page: a public Test gave exactly that prompt."""
    if not is_prompt_key(key):
        return False
    found = select(Test.id).where(_PUBLIC, col(Test.prompt_key) == key).limit(1)
    return session.exec(found).first() is not None


def prompt_group(session: Session, key: str) -> PromptGroup | None:
    """The group page for ``key``; None when no public Test has that prompt."""
    if not has_group(session, key):
        return None
    keys = joined_keys(session, key)
    rows = summary_rows(session, _PUBLIC, col(Test.prompt_key).in_(keys))
    policy = current_policy(session)
    counted = counted_reviews(session, policy, [test.id for test, *_ in rows])
    prior_mean = mean_bp(score for entry in counted.values() for score in entry.scores)

    def order(row: SummaryRow) -> tuple[int, int, float, str]:
        test = row[0]
        scores = counted[test.id].scores if test.id in counted else ()
        score = bayesian_score_bp(scores, policy.prior_weight, prior_mean) if scores else -1
        published = as_utc(test.published_at).timestamp() if test.published_at else 0.0
        return (-score, -len(scores), -published if score < 0 else published, test.id)

    ordered = sorted(rows, key=order)
    variance = pooled_variance_bp2(
        (score for entry in counted.values() for score in entry.scores), prior_mean
    )
    spans = {
        test.id: interval(
            bayesian_score_bp(counted[test.id].scores, policy.prior_weight, prior_mean),
            half_width_bp(variance, len(counted[test.id].scores), policy.prior_weight),
        )
        for test, *_ in ordered
        if test.id in counted
    }
    firsts, lasts = rank_bands(
        [low for low, _ in spans.values()], [high for _, high in spans.values()]
    )
    bands = dict(zip(spans, zip(firsts, lasts, strict=True), strict=True))
    members = [
        _member(row, counted, policy.prior_weight, prior_mean, spans, bands) for row in ordered
    ]
    own = next(test for test, *_ in rows if test.prompt_key == key)
    similar = similar_keys(session, key, own.prompt, exclude=keys)
    info = _titles_and_sizes(session, (s.prompt_key for s in similar))
    return PromptGroup(
        key=key,
        keys=keys,
        prompt=own.prompt,
        members=members,
        similar=[
            SimilarGroup(s.prompt_key, s.similarity_percent, *info[s.prompt_key])
            for s in similar
            if s.prompt_key in info
        ],
        aliases=_aliases(session, key),
        prior_mean_bp=prior_mean,
        prior_weight=policy.prior_weight,
    )


def _member(
    row: SummaryRow,
    counted: dict[str, Any],
    m: int,
    prior_mean: int,
    spans: dict[str, tuple[int, int]],
    bands: dict[str, tuple[int, int]],
) -> GroupMember:
    test = row[0]
    scores = counted[test.id].scores if test.id in counted else ()
    span = spans.get(test.id)
    first, last = bands.get(test.id, (0, 0))
    return GroupMember(
        test=summarise(row),
        prompt_key=test.prompt_key,
        review_count=len(scores),
        median=median_text(scores),
        score=points_text(bayesian_score_bp(scores, m, prior_mean)) if scores else "",
        score_low=points_text(span[0]) if span else "",
        score_high=points_text(span[1]) if span else "",
        band_first=first,
        band_last=last,
        band=band_text(first, last) if span else "",
    )


def in_order(members: list[GroupMember], sort: str) -> list[tuple[int, GroupMember]]:
    """The members, each with its place in the group's score order (``members``' own, 1 the
    best), in the list order ``sort`` names: ``top_score`` keeps the score order, ``newest``
    puts the latest published first, ``most_reviewed`` the most counted reviews first (ties
    newest first). The whole group is already in memory, so this is a sort of a few rows."""
    placed = list(enumerate(members, start=1))

    def published(member: GroupMember) -> float:
        moment = member.test.published_at
        return as_utc(moment).timestamp() if moment else 0.0

    if sort == NEWEST:
        return sorted(placed, key=lambda pair: published(pair[1]), reverse=True)
    if sort == MOST_REVIEWED:
        return sorted(
            placed, key=lambda pair: (pair[1].review_count, published(pair[1])), reverse=True
        )
    return placed


@dataclass(frozen=True)
class GroupSummary:
    prompt_key: str
    title: str
    size: int


def largest_groups(session: Session, limit: int = 50) -> list[GroupSummary]:
    """Prompts tried by two or more public Tests, largest first."""
    rows = session.exec(
        select(Test.prompt_key, func.count().label("size"))
        .where(_PUBLIC)
        .group_by(col(Test.prompt_key))
        .having(func.count() >= 2)
        .order_by(func.count().desc(), col(Test.prompt_key))
        .limit(limit)
    ).all()
    info = _titles_and_sizes(session, (key for key, _size in rows))
    return [GroupSummary(key, info[key][0], int(size)) for key, size in rows if key in info]


def record_alias(
    session: Session, actor: User | None, key: str, other_key: str, reason: object
) -> ModerationDecision:
    """A moderator's append-only decision that two prompt keys are the same prompt: a
    ``prompt_alias`` row, and the decision (targeting that row) that records who and why."""
    admin = require_admin(actor, "join prompt groups")
    clean = clean_reason(reason)
    if not (is_prompt_key(key) and is_prompt_key(other_key)) or key == other_key:
        raise Invalid("invalid_prompt_key", "Name two different prompt keys.")
    for candidate in (key, other_key):
        if group_size(session, candidate) == 0:
            raise NotFound("group_not_found", "No public Test has that prompt.")
    if other_key in joined_keys(session, key):
        raise Conflict("already_joined", "These prompts are already one group.")
    key_a, key_b = sorted((key, other_key))
    alias = PromptAlias(key_a=key_a, key_b=key_b, moderator_id=admin.id, reason=clean)
    session.add(alias)
    session.flush()
    return record_decision(
        session,
        admin,
        ModerationAction.PROMPT_ALIAS,
        ("prompt_alias", alias.id),
        clean,
        ("separate", "joined"),
    )


@dataclass(frozen=True)
class GroupLink:
    prompt_key: str
    others: int
    # The Test, and the newest other member: the page's link compares the two first.
    test_id: str = ""
    newest_other: str = ""

    @property
    def compare_url(self) -> str:
        return f"/prompts/{self.prompt_key}?compare={self.test_id},{self.newest_other}"


def group_link(session: Session, test_id: str) -> GroupLink | None:
    """For a public Test whose prompt other public Tests share: its group, how many others,
    and the newest of them."""
    test = session.get(Test, test_id) if is_public_id(test_id) else None
    if test is None or test.state != TestState.PUBLIC:
        return None
    keys = joined_keys(session, test.prompt_key)
    others = col(Test.prompt_key).in_(keys), _PUBLIC, col(Test.id) != test.id
    count = int(session.exec(select(func.count()).select_from(Test).where(*others)).one())
    if not count:
        return None
    newest = session.exec(
        select(Test.id)
        .where(*others)
        .order_by(col(Test.published_at).desc(), col(Test.id))
        .limit(1)
    ).one()
    return GroupLink(test.prompt_key, count, test.id, newest)
