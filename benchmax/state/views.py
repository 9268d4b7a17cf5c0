"""Turn service DTOs into the view models and strings Reflex components render."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from benchmax.components.badges import REVIEW_COLORS
from benchmax.context import app_context
from benchmax.services.dates import Stamp, stamp
from benchmax.services.evidence_urls import evidence_url
from benchmax.services.feed import FeedCard
from benchmax.services.search import Segment
from benchmax.services.submissions import status_label
from benchmax.services.summaries import TestSummary


def size_text(size: int) -> str:
    """A byte count as people read it: 512 B, 2.7 KiB, 1.2 MiB."""
    value = float(size)
    for unit in ("B", "KiB", "MiB"):
        if value < 1024:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"


def count_text(count: int, noun: str) -> str:
    """ "1 review", "3 reviews": regular English plurals only, which is all the pages need."""
    return f"{count} {noun}" + ("" if count == 1 else "s")


def attempts_text(attempts: int | None) -> str:
    if attempts is None:
        return "attempts not declared"
    return "best of " + count_text(attempts, "attempt")


def setup_text(model: str, version: str, harness: str, reasoning: str) -> str:
    model_part = f"{model} {version}".strip()
    return f"{model_part} · {harness} · reasoning: {reasoning}"


@dataclass(frozen=True)
class MarkPart:
    """A piece of a card's title or excerpt; ``hit`` pieces matched the search. The page
    renders both as text nodes, so a Test's own text never becomes markup."""

    text: str
    hit: bool

    @classmethod
    def of(cls, segments: list[Segment]) -> list[MarkPart]:
        return [cls(segment.text, segment.hit) for segment in segments]


def score_text(count: int, score: int | None) -> str:
    """The score chip of a reviewed card ("Score 87 · 2 reviews"); empty before a review."""
    if score is None:
        return ""
    return f"Score {score} · {count} review" + ("" if count == 1 else "s")


@dataclass(frozen=True)
class LinkView:
    """A line that links somewhere; an empty text means the line is not shown."""

    text: str = ""
    href: str = ""


@dataclass(frozen=True)
class FactView:
    """One labelled value of a fact list; ``key`` names its element for tests and anchors."""

    key: str
    label: str
    value: str


# What a feed card and a showcase summary both say about a listed Test.
Listed = FeedCard | TestSummary


@dataclass(frozen=True)
class ListedView:
    """A listed Test as every list shows it; thumbnails point at the user-content origin.

    Empty values stand for a row with nothing to show (a Test removed after a snapshot).
    """

    href: str = ""
    title: str = ""
    handle: str = ""
    contributor: str = ""
    setup: str = ""
    attempts: str = ""
    kinds: str = ""
    thumb: str = ""  # empty: no thumbnail
    sample: bool = False
    published: Stamp = field(default_factory=Stamp)

    @staticmethod
    def fields_of(test: Listed) -> dict[str, Any]:
        """The shared values, for ``of`` here and in the views that add their own."""
        origin = app_context().settings.usercontent_origin
        thumb = ""
        if test.thumbnail_evidence_id:
            thumb = evidence_url(
                origin, test.thumbnail_evidence_id, test.thumbnail_safe_name or "image"
            )
        return {
            "href": f"/tests/{test.id}",
            "title": test.title,
            "handle": test.contributor_handle,
            "contributor": test.contributor_display_name or test.contributor_handle,
            "setup": setup_text(
                test.model_label,
                test.model_version_label,
                test.harness_label,
                test.reasoning_label,
            ),
            "attempts": attempts_text(test.attempts),
            "kinds": " · ".join(test.evidence_kinds) if test.evidence_kinds else "text output",
            "thumb": thumb,
            "sample": test.is_sample,
            "published": stamp(test.published_at),
        }


@dataclass(frozen=True)
class ScoredView(ListedView):
    """A listed Test with its place in a ranking and the reviews its score comes from."""

    place: str = ""
    score: str = ""
    reviews: str = ""


@dataclass(frozen=True)
class CardView(ListedView):
    """A feed card: a listed Test with its review status."""

    id: str = ""
    status: str = ""
    status_color: str = "gray"
    kind_list: list[str] = field(default_factory=list)  # evidence kinds, each an icon + name
    score: str = ""  # empty: not reviewed yet
    title_marks: list[MarkPart] = field(default_factory=list)  # search pages only
    excerpt_marks: list[MarkPart] = field(default_factory=list)

    @classmethod
    def of(cls, card: FeedCard) -> CardView:
        review = str(card.review_state)
        return cls(
            **cls.fields_of(card),
            id=card.id,
            status=status_label("public", review),
            status_color=REVIEW_COLORS.get(review, "gray"),
            kind_list=list(card.evidence_kinds),
            score=score_text(card.review_count, card.review_score),
            title_marks=MarkPart.of(card.title_marks),
            excerpt_marks=MarkPart.of(card.excerpt_marks),
        )
