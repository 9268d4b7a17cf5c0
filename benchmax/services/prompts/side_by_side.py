"""What a group page shows of each member beside the others, and two members' word diff.

The group's own query (``groups.prompt_group``) reads no output, so a group of a thousand
Tests costs what it did; the shown page's outputs (a head of each) and image thumbnails are
read here, two queries for the page. A comparison is named by the address
(``/prompts/KEY?compare=A,B``) and so is untrusted input: anything but two different public
Tests of this group is refused with a message that says what to do instead.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import func
from sqlmodel import Session, col, select

from benchmax.models import EvidenceFile, EvidenceKind, EvidenceState, Test, TestState
from benchmax.models._base import is_public_id
from benchmax.services.errors import Invalid, NotFound
from benchmax.services.prompts.groups import is_prompt_key, joined_keys
from benchmax.services.prompts.word_diff import WordDiff, word_diff
from benchmax.services.summaries import SummaryRow, summaries_by_id

# A member's output is shown from its first characters; the whole text is on its Test page.
OUTPUT_HEAD = 4_000
IMAGES_SHOWN = 4
# The compare parameter is read no further than two ids and their comma need.
_MAX_PARAM = 64
_PICK_TWO = "Pick two setups below to compare their outputs."


@dataclass(frozen=True)
class MemberExtras:
    """What a member's column adds to its card: the head of its output and its images."""

    output_head: str = ""
    output_chars: int = 0
    images: list[tuple[str, str]] = field(default_factory=list)  # (evidence id, safe name)

    @property
    def output_cut(self) -> bool:
        return self.output_chars > len(self.output_head)


def member_extras(session: Session, test_ids: list[str]) -> dict[str, MemberExtras]:
    """The shown members' output heads and approved images (callers pass public Tests)."""
    if not test_ids:
        return {}
    heads = {
        test_id: (head or "", int(length or 0))
        for test_id, head, length in session.exec(
            select(
                Test.id,
                func.substr(Test.output_text, 1, OUTPUT_HEAD),
                func.length(Test.output_text),
            ).where(col(Test.id).in_(test_ids))
        ).all()
    }
    images: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for test_id, evidence_id, name in session.exec(
        select(EvidenceFile.test_id, EvidenceFile.id, EvidenceFile.safe_name)
        .where(
            col(EvidenceFile.test_id).in_(test_ids),
            EvidenceFile.kind == EvidenceKind.IMAGE,
            EvidenceFile.state == EvidenceState.APPROVED,
        )
        .order_by(col(EvidenceFile.test_id), col(EvidenceFile.position))
    ).all():
        if len(images[test_id]) < IMAGES_SHOWN:
            images[test_id].append((evidence_id, name))
    return {
        test_id: MemberExtras(*heads.get(test_id, ("", 0)), images=images.get(test_id, []))
        for test_id in test_ids
    }


def compare_ids(raw: str) -> tuple[str, str]:
    """The two Test ids ``?compare=A,B`` names, or an ``Invalid`` that says what is wrong."""
    parts = [part.strip() for part in str(raw)[: _MAX_PARAM + 1].split(",")]
    parts = [part for part in parts if part]
    if len(str(raw)) > _MAX_PARAM or len(parts) != 2:
        raise Invalid(
            "compare_needs_two",
            "A comparison is of exactly two setups. " + _PICK_TWO,
            "compare",
        )
    if not all(is_public_id(part) for part in parts):
        raise Invalid(
            "compare_not_a_test", "The address does not name two Tests. " + _PICK_TWO, "compare"
        )
    if parts[0] == parts[1]:
        raise Invalid("compare_same_test", "Both sides name the same Test. " + _PICK_TWO, "compare")
    return parts[0], parts[1]


@dataclass(frozen=True)
class Comparison:
    """Two members of one group and what changed from the first one's output to the other's."""

    before: SummaryRow
    after: SummaryRow
    diff: WordDiff


def compare_members(session: Session, key: str, raw: str) -> Comparison:
    """The word diff of two public members of the group ``key``, named by ``raw`` ("A,B")."""
    first, second = compare_ids(raw)
    keys = set(joined_keys(session, key)) if is_prompt_key(key) else set()
    rows = session.exec(
        select(Test.id, Test.output_text).where(
            col(Test.id).in_((first, second)),
            Test.state == TestState.PUBLIC,
            col(Test.prompt_key).in_(keys),
        )
    ).all()
    outputs = {test_id: text or "" for test_id, text in rows}
    if set(outputs) != {first, second}:
        raise NotFound(
            "compare_not_in_group",
            "At least one of the two Tests is not a public Test of this prompt (it may have "
            "been removed, or belong to another prompt). " + _PICK_TWO,
            "compare",
        )
    summaries = summaries_by_id(session, (first, second))
    return Comparison(
        before=summaries[first],
        after=summaries[second],
        diff=word_diff(outputs[first], outputs[second]),
    )
