"""Same-prompt comparison groups, similar prompts, alias decisions and the feed filter."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlmodel import Session, select

from benchmax.models import ModerationDecision, PromptAlias, Role, Test, TestState, prompt_key
from benchmax.models._base import utcnow
from benchmax.services import feed
from benchmax.services.errors import ServiceError
from benchmax.services.prompts import groups
from benchmax.services.prompts.similar import index_prompts
from tests.support.factories import make_review, make_test, make_user
from tests.unit.safety.corpus import canary_key

PROMPT = (
    "Build a single page to-do app in plain HTML, CSS and JavaScript. Tasks can be added, "
    "ticked off, edited in place and deleted, and they survive a page reload through "
    "localStorage. Keyboard only use must work and the layout must hold at phone width."
)
NEAR = PROMPT.replace("must hold at phone width.", "must hold at phone width, too.")
VARIANTS = [
    PROMPT,
    PROMPT.upper(),
    "  " + PROMPT.replace(" ", "  ") + "\n",
    PROMPT.replace("Build", "Build\u200b"),
]


def _reviewed(session: Session, prompt: str, scores: list[int], **overrides: Any) -> Test:
    test = make_test(session, prompt=prompt, **overrides)
    for score in scores:
        make_review(session, test, make_user(session, role=Role.REVIEWER), score=score)
    return test


def test_prompts_differing_in_case_spacing_and_invisibles_form_one_group(session: Session) -> None:
    tests = [
        _reviewed(session, VARIANTS[0], [60]),
        _reviewed(session, VARIANTS[1], [95, 95, 95]),
        _reviewed(session, VARIANTS[2], [100]),
        _reviewed(session, VARIANTS[3], [], attempts=3),
    ]
    hidden = make_test(session, prompt=PROMPT, state=TestState.REMOVED)
    draft = make_test(session, prompt=PROMPT, state=TestState.DRAFT, published_at=None)
    near = make_test(session, prompt=NEAR)
    session.commit()
    assert len({t.prompt_key for t in tests}) == 1
    group = groups.prompt_group(session, tests[0].prompt_key)
    assert group is not None
    ids = [m.test.id for m in group.members]
    # Shrunk within the group (C = mean of 60, 95, 95, 95, 100 = 89): three 95s (92.00)
    # beat one 100 (91.75).
    assert ids == [tests[1].id, tests[2].id, tests[0].id, tests[3].id]
    assert {hidden.id, draft.id, near.id}.isdisjoint(ids)
    first, *_rest, unreviewed = group.members
    assert (first.review_count, first.median, first.score) == (3, "95", "92.00")
    assert (unreviewed.review_count, unreviewed.score, unreviewed.test.attempts) == (0, "", 3)
    assert group.prior_mean_bp == 8900
    link = groups.group_link(session, tests[0].id)
    assert link is not None
    assert link.others == 3
    assert groups.group_link(session, near.id) is None  # alone in its group


def test_a_near_duplicate_is_listed_as_similar_never_grouped(session: Session) -> None:
    base = make_test(session, prompt=PROMPT)
    make_test(session, prompt=PROMPT.lower())
    near = make_test(session, prompt=NEAR)
    unrelated = make_test(session, prompt="Explain a mutex versus a semaphore, with Go code.")
    session.commit()
    assert index_prompts(session) == 3  # one signature per distinct prompt key
    assert index_prompts(session) == 0
    group = groups.prompt_group(session, base.prompt_key)
    assert group is not None
    assert near.id not in [m.test.id for m in group.members]
    assert [s.prompt_key for s in group.similar] == [near.prompt_key]
    assert group.similar[0].similarity_percent >= 80
    assert group.similar[0].size == 1
    other = groups.prompt_group(session, near.prompt_key)
    assert other is not None
    assert [s.prompt_key for s in other.similar] == [base.prompt_key]
    assert unrelated.prompt_key not in [s.prompt_key for s in group.similar]


def test_a_new_prompt_sees_older_similar_ones_before_it_is_indexed(session: Session) -> None:
    base = make_test(session, prompt=PROMPT)
    session.commit()
    index_prompts(session)
    near = make_test(session, prompt=NEAR)
    session.commit()
    group = groups.prompt_group(session, near.prompt_key)
    assert group is not None
    assert [s.prompt_key for s in group.similar] == [base.prompt_key]


def test_a_moderator_joins_two_prompts_with_an_append_only_decision(session: Session) -> None:
    base = make_test(session, prompt=PROMPT)
    near = make_test(session, prompt=NEAR)
    moderator = make_user(session, role=Role.MODERATOR)
    contributor = make_user(session)
    session.commit()
    with pytest.raises(ServiceError) as refused:
        groups.record_alias(
            session, contributor, base.prompt_key, near.prompt_key, "same task really"
        )
    assert refused.value.status == 403
    for other, reason, code in (
        (near.prompt_key, "short", "reason_too_short"),
        (base.prompt_key, "the same prompt twice", "invalid_prompt_key"),
        ("z" * 64, "not a key at all here", "invalid_prompt_key"),
        (prompt_key("nobody tried this"), "no Test has this prompt", "group_not_found"),
        (near.prompt_key, f"same prompt, see {canary_key()}", "secret_detected"),
    ):
        with pytest.raises(ServiceError) as bad:
            groups.record_alias(session, moderator, base.prompt_key, other, reason)
        assert bad.value.code == code
    groups.record_alias(
        session, moderator, base.prompt_key, near.prompt_key, "Only a comma differs."
    )
    session.commit()
    with pytest.raises(ServiceError) as again:
        groups.record_alias(
            session, moderator, near.prompt_key, base.prompt_key, "joined twice now"
        )
    assert again.value.status == 409
    for key in (base.prompt_key, near.prompt_key):
        group = groups.prompt_group(session, key)
        assert group is not None
        assert {m.test.id for m in group.members} == {base.id, near.id}
        assert [a.reason for a in group.aliases] == ["Only a comma differs."]
    assert len(session.exec(select(PromptAlias)).all()) == 1
    decision = session.exec(select(ModerationDecision)).one()
    assert (decision.action, decision.moderator_id) == ("prompt.alias", moderator.id)


def test_groups_refuse_malformed_keys_and_list_the_largest_first(session: Session) -> None:
    for bad in ("", "abc", "G" * 64, PROMPT, "../" * 30):
        assert groups.prompt_group(session, bad) is None
    small = make_test(session, prompt="pair prompt")
    make_test(session, prompt="Pair  Prompt")
    for _ in range(3):
        large = make_test(session, prompt="triple prompt")
    make_test(session, prompt="alone")
    session.commit()
    listed = [(g.prompt_key, g.size) for g in groups.largest_groups(session)]
    assert listed == [(large.prompt_key, 3), (small.prompt_key, 2)]


def test_the_feed_filters_to_prompts_with_two_or_more_setups(session: Session) -> None:
    a = make_test(session, prompt="shared prompt")
    b = make_test(session, prompt="SHARED prompt")
    make_test(session, prompt="lonely prompt")
    make_test(session, prompt="shared prompt", state=TestState.REMOVED)
    session.commit()
    page = feed.list_feed(session, feed.FeedFilters.from_query({"compare": "on"}))
    assert {card.id for card in page.items} == {a.id, b.id}
    assert len(feed.list_feed(session, feed.FeedFilters()).items) == 3


def test_a_group_lists_in_the_order_picked_and_keeps_each_members_place(
    session: Session,
) -> None:
    now = utcnow()
    best = _reviewed(session, PROMPT, [90, 85], published_at=now - timedelta(days=3))
    worse = _reviewed(session, PROMPT, [20], published_at=now - timedelta(days=2))
    fresh = _reviewed(session, PROMPT, [], published_at=now - timedelta(days=1))
    session.commit()
    group = groups.prompt_group(session, best.prompt_key)
    assert group is not None

    def shown(sort: str) -> list[tuple[int, str]]:
        return [(place, m.test.id) for place, m in groups.in_order(group.members, sort)]

    ranked = [(1, best.id), (2, worse.id), (3, fresh.id)]
    assert shown("top_score") == ranked
    assert shown("newest") == [(3, fresh.id), (2, worse.id), (1, best.id)]
    assert shown("most_reviewed") == ranked
    # An order the menu does not offer is the group's own.
    assert shown("sideways") == ranked
