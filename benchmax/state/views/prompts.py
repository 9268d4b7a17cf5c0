"""What ``/prompts`` and a prompt group show: the groups, their members and the aliases."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from benchmax.context import app_context
from benchmax.presentation.formatting import count_text, setup_text
from benchmax.services.dates import Stamp
from benchmax.services.evidence_urls import evidence_url
from benchmax.services.markdown import render_markdown
from benchmax.services.preview.view import PreviewView
from benchmax.services.prompts import groups
from benchmax.services.prompts.side_by_side import Comparison, MemberExtras
from benchmax.services.prompts.word_diff import MAX_CHARS
from benchmax.services.summaries import SummaryRow, summarise
from benchmax.state.views.listed import ListedView, ScoredView

# An output longer than this starts folded in its column, so the columns stay comparable.
FOLDED_OVER = 600


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
class ImageView:
    url: str = ""
    name: str = ""


@dataclass(frozen=True)
class MemberView(ScoredView):
    """One Test of a group, ranked within it, with its median counted review; once its column
    is shown, also its preview figures, the head of its output and its images."""

    id: str = ""
    median: str = ""
    preview: PreviewView = field(default_factory=PreviewView)
    output_html: str = ""
    output_size: str = ""  # "1,234 characters"
    output_folded: bool = False  # long: starts folded
    output_cut: bool = False  # longer than the head shown
    images: list[ImageView] = field(default_factory=list)

    def shown(self, preview: PreviewView, extras: MemberExtras) -> MemberView:
        """This member with what its column shows beside the others."""
        origin = app_context().settings.usercontent_origin
        return replace(
            self,
            preview=preview,
            output_html=render_markdown(extras.output_head) if extras.output_head else "",
            output_size=f"{extras.output_chars:,} characters",
            output_folded=extras.output_chars > FOLDED_OVER,
            output_cut=extras.output_cut,
            images=[ImageView(evidence_url(origin, i, name), name) for i, name in extras.images],
        )

    @classmethod
    def of(cls, member: groups.GroupMember, place: int, preview: PreviewView) -> MemberView:
        return cls(
            **cls.fields_of(member.test),
            id=member.test.id,
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
    joined: Stamp = field(default_factory=Stamp)


@dataclass(frozen=True)
class CompareSide:
    title: str = ""
    href: str = ""
    setup: str = ""


@dataclass(frozen=True)
class CompareView:
    """Two members' outputs, word by word: ``html`` is the escaped diff the service built."""

    before: CompareSide = field(default_factory=CompareSide)
    after: CompareSide = field(default_factory=CompareSide)
    html: str = ""
    counts: str = ""
    note: str = ""
    swap_href: str = ""

    @staticmethod
    def _side(row: SummaryRow) -> CompareSide:
        listed = ListedView.fields_of(summarise(row))
        test = row[0]
        title = listed["title"] or f"Untitled Test by {listed['contributor']}"
        setup = setup_text(
            test.model_label, test.model_version_label, test.harness_label, test.reasoning_label
        )
        return CompareSide(title, listed["href"], setup)

    @classmethod
    def of(cls, key: str, comparison: Comparison) -> CompareView:
        diff = comparison.diff
        if diff.identical:
            counts = "The two outputs have the same words."
        else:
            added = count_text(diff.added_words, "word")
            removed = count_text(diff.removed_words, "word")
            counts = f"{added} added and {removed} removed."
        notes = []
        if diff.cut:
            notes.append(f"Only the first {MAX_CHARS:,} characters of each output are compared.")
        if diff.coarse:
            notes.append(
                "These outputs differ a lot, so some changes are marked as whole passages "
                "rather than word by word."
            )
        before, after = comparison.before[0].id, comparison.after[0].id
        return cls(
            before=cls._side(comparison.before),
            after=cls._side(comparison.after),
            html=diff.html,
            counts=counts,
            note=" ".join(notes),
            swap_href=f"/prompts/{key}?compare={after},{before}",
        )
