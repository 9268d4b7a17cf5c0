"""What ``/prompts`` and a prompt group show: the groups, their members and the aliases."""

from __future__ import annotations

from dataclasses import dataclass, field

from benchmax.presentation.formatting import count_text
from benchmax.services.preview.view import PreviewView
from benchmax.services.prompts import groups
from benchmax.state.views.listed import ScoredView


@dataclass(frozen=True)
class GroupRow:
    """A comparison group in a list: the largest on ``/prompts``, the similar ones on a group."""

    key: str
    href: str
    title: str
    size: str
    similarity: str = ""  # similar groups only

    @classmethod
    def of(cls, key: str, title: str, size: int, similarity: str = "") -> GroupRow:
        return cls(
            key=key,
            href=f"/prompts/{key}",
            title=title,
            size=count_text(size, "Test"),
            similarity=similarity,
        )


@dataclass(frozen=True)
class MemberView(ScoredView):
    """One Test of a group, ranked within it, with its median counted review."""

    median: str = ""
    preview: PreviewView = field(default_factory=PreviewView)

    @classmethod
    def of(cls, member: groups.GroupMember, place: int, preview: PreviewView) -> MemberView:
        return cls(
            **cls.fields_of(member.test),
            # Unreviewed members come last in the order, and a place would read as a rank
            # they have not earned.
            place=str(place) if member.review_count else "",
            reviews=count_text(member.review_count, "counted review"),
            median=f"median {member.median}" if member.median else "not reviewed yet",
            score=member.score,
            band=member.band,
            **cls.interval_fields(member.score, member.score_low, member.score_high),
            preview=preview,
        )


@dataclass(frozen=True)
class AliasView:
    """A moderator's recorded join of another prompt into this group."""

    href: str = ""
    reason: str = ""
    date: str = ""
