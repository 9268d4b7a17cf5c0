"""A group page's side-by-side columns, the ``?compare=A,B`` it is named by, and "Try this
prompt with your setup" (a new draft holding only another Test's prompt)."""

from __future__ import annotations

import dataclasses

import pytest
from sqlmodel import Session, select

from benchmax.models import EvidenceKind, EvidenceState, PromptAlias, Test, TestState
from benchmax.models._base import new_id
from benchmax.services import submissions
from benchmax.services.errors import Conflict, Invalid, NotFound
from benchmax.services.prompts import groups
from benchmax.services.prompts.side_by_side import (
    IMAGES_SHOWN,
    OUTPUT_HEAD,
    compare_ids,
    compare_members,
    member_extras,
)
from benchmax.settings import Settings
from tests.support.factories import make_evidence, make_test, make_user

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
PROMPT = "Write a limerick about a lighthouse keeper who is afraid of the dark."
OTHER_PROMPT = "Explain a mutex to a five-year-old."


def _group(session: Session) -> tuple[Test, Test, Test]:
    first = make_test(session, prompt=PROMPT, output_text="The keeper climbed up every night.")
    second = make_test(
        session,
        prompt=PROMPT.upper(),  # the same prompt, as grouping compares it
        model_label="GPT-5",
        output_text="The keeper crept up every single night.",
    )
    other = make_test(session, prompt=OTHER_PROMPT, output_text="A lock is like a toilet door.")
    session.commit()
    return first, second, other


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "abc",
        "x" * 16,  # one id
        ",".join(f"{n}bcdefghjkmnpqrs" for n in "23456"),  # five ids, fixed: xdist workers
        ",".join(f"{n}bcdefghjkmnpqrs" for n in "234"),  # must collect the same parameters
        "a,b",  # not ids
        "../../etc,passwd" + "x" * 10,
        "<script>,</script>",
        "\x00" * 33,
        " , ",
        "A" * 10_000,
    ],
)
def test_anything_but_two_test_ids_is_refused_with_a_plain_message(raw: str) -> None:
    with pytest.raises(Invalid) as refused:
        compare_ids(raw)
    assert refused.value.field == "compare"
    assert "Pick two setups" in refused.value.message
    assert raw.strip(" ,") == "" or raw[:20] not in refused.value.message  # never echoed


def test_the_same_test_twice_is_refused() -> None:
    same = new_id()
    with pytest.raises(Invalid, match="same Test"):
        compare_ids(f"{same},{same}")


def test_two_ids_with_spaces_are_read() -> None:
    a, b = new_id(), new_id()
    assert compare_ids(f" {a} , {b} ") == (a, b)


@BOTH
def test_two_members_are_diffed_from_the_first_to_the_second(session: Session) -> None:
    first, second, _other = _group(session)
    found = compare_members(session, first.prompt_key, f"{first.id},{second.id}")
    assert (found.before[0].id, found.after[0].id) == (first.id, second.id)
    assert "<del>" in found.diff.html
    assert "<ins>" in found.diff.html
    # "climbed" became "crept", and "single" was added.
    assert (found.diff.added_words, found.diff.removed_words) == (2, 1)


@BOTH
def test_ids_outside_the_group_or_not_public_are_refused(session: Session) -> None:
    first, second, other = _group(session)
    removed = make_test(session, prompt=PROMPT, state=TestState.REMOVED)
    draft = make_test(session, prompt=PROMPT, state=TestState.DRAFT)
    session.commit()
    key = first.prompt_key
    for stranger in (other.id, removed.id, draft.id, new_id()):
        with pytest.raises(NotFound) as refused:
            compare_members(session, key, f"{first.id},{stranger}")
        assert refused.value.code == "compare_not_in_group"
        assert "Pick two setups" in refused.value.message
    # A key that is no group's answers the same, whatever the ids.
    with pytest.raises(NotFound):
        compare_members(session, "0" * 64, f"{first.id},{second.id}")
    with pytest.raises(NotFound):
        compare_members(session, "not-a-key", f"{first.id},{second.id}")


@BOTH
def test_a_member_joined_by_a_moderator_alias_can_be_compared(session: Session) -> None:
    first, _second, other = _group(session)
    key_a, key_b = sorted((first.prompt_key, other.prompt_key))
    moderator = make_user(session)
    session.add(PromptAlias(key_a=key_a, key_b=key_b, moderator_id=moderator.id, reason="same"))
    session.commit()
    found = compare_members(session, first.prompt_key, f"{first.id},{other.id}")
    assert found.after[0].id == other.id


@BOTH
def test_columns_read_a_head_of_each_output_and_at_most_four_approved_images(
    session: Session,
) -> None:
    long = make_test(session, prompt=PROMPT, output_text="word " * 5_000)
    empty = make_test(session, prompt=PROMPT, output_text="")
    for position in range(IMAGES_SHOWN + 2):
        make_evidence(
            session,
            long,
            kind=EvidenceKind.IMAGE,
            state=EvidenceState.APPROVED,
            safe_name=f"shot-{position}.png",
            position=position,
        )
    make_evidence(session, empty, kind=EvidenceKind.IMAGE, state=EvidenceState.BLOCKED)
    make_evidence(session, empty, kind=EvidenceKind.TEXT, state=EvidenceState.APPROVED)
    session.commit()
    extras = member_extras(session, [long.id, empty.id])
    assert len(extras[long.id].output_head) == OUTPUT_HEAD
    assert extras[long.id].output_chars == 25_000
    assert extras[long.id].output_cut
    assert [name for _, name in extras[long.id].images] == [
        f"shot-{n}.png" for n in range(IMAGES_SHOWN)
    ]
    assert dataclasses.astuple(extras[empty.id]) == ("", 0, [])
    assert member_extras(session, []) == {}


@BOTH
def test_a_tests_group_link_compares_it_with_the_newest_other_member(session: Session) -> None:
    first, second, _other = _group(session)
    link = groups.group_link(session, first.id)
    assert link is not None
    assert link.others == 1
    assert link.compare_url == f"/prompts/{first.prompt_key}?compare={first.id},{second.id}"


@BOTH
def test_trying_a_prompt_copies_the_prompt_and_nothing_else(
    session: Session, settings: Settings
) -> None:
    source = make_test(
        session,
        prompt=PROMPT,
        title="Keeper limerick",
        settings_text="temperature 0.2",
        notes="my notes",
        attempts=3,
    )
    me = make_user(session)
    session.commit()
    draft = submissions.draft_with_prompt_of(session, me, settings, source.id)
    session.commit()
    stored = session.get(Test, draft.id)
    assert stored is not None
    assert stored.id != source.id
    assert (stored.state, stored.contributor_id, stored.prompt) == (TestState.DRAFT, me.id, PROMPT)
    assert stored.prompt_key == source.prompt_key  # so, once public, it joins the group
    copied = (
        stored.title,
        stored.model_label,
        stored.harness_label,
        stored.reasoning_label,
        stored.settings_text,
        stored.notes,
        stored.output_text,
        stored.attempts,
    )
    assert not any(copied), copied


@BOTH
def test_only_a_public_tests_prompt_can_be_tried(session: Session, settings: Settings) -> None:
    me = make_user(session)
    hidden = [
        make_test(session, prompt="secret plan", state=state)
        for state in (TestState.REMOVED, TestState.DRAFT, TestState.PROCESSING)
    ]
    session.commit()
    for candidate in [*(t.id for t in hidden), new_id(), "../etc", "", "x" * 5000]:
        with pytest.raises(NotFound) as refused:
            submissions.draft_with_prompt_of(session, me, settings, candidate)
        assert "not public" in refused.value.message
        session.rollback()
    assert session.exec(select(Test).where(Test.contributor_id == me.id)).all() == []


@BOTH
def test_trying_a_prompt_counts_against_the_open_draft_cap(
    session: Session, settings: Settings
) -> None:
    source = make_test(session, prompt=PROMPT)
    me = make_user(session)
    session.commit()
    capped = settings.model_copy(update={"max_open_drafts": 1})
    submissions.draft_with_prompt_of(session, me, capped, source.id)
    session.commit()
    with pytest.raises(Conflict):
        submissions.draft_with_prompt_of(session, me, capped, source.id)
