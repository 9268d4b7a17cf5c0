"""Views of a listed Test (a feed card, a ranked entry) and the small pieces many pages show."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from benchmax.context import app_context
from benchmax.presentation.colours import review_color
from benchmax.presentation.formatting import attempts_text, score_text, setup_text
from benchmax.services.dates import Stamp, stamp
from benchmax.services.evidence_urls import evidence_url
from benchmax.services.feed import FeedCard
from benchmax.services.search import Segment
from benchmax.services.submissions import status_label
from benchmax.services.summaries import TestSummary


@dataclass(frozen=True)
class MarkPart:
    """A piece of a card's title or excerpt; ``hit`` pieces matched the search. The page
    renders both as text nodes, so a Test's own text never becomes markup."""

    text: str
    hit: bool

    @classmethod
    def of(cls, segments: list[Segment]) -> list[MarkPart]:
        return [cls(segment.text, segment.hit) for segment in segments]


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
    """A listed Test with its place in a ranking and the reviews its score comes from.

    ``band`` and ``interval`` are the sealed rank band and 95% interval in words ("" before
    they were sealed); the ``bar_*`` values place the interval on a 0-100 scale as CSS
    percentages, so the page draws it without arithmetic of its own.
    """

    place: str = ""
    score: str = ""
    reviews: str = ""
    band: str = ""
    interval: str = ""
    bar_left: str = "0%"
    bar_width: str = "0%"
    bar_mark: str = "0%"

    @staticmethod
    def interval_fields(score: str, low: str, high: str) -> dict[str, str]:
        """The interval's words and bar for ``score`` in [``low``, ``high``] (point strings)."""
        if not low or float(high) <= 0:
            return {}
        return {
            "interval": f"{low}\N{EN DASH}{high}",
            "bar_left": f"{float(low):.2f}%",
            "bar_width": f"{float(high) - float(low):.2f}%",
            "bar_mark": f"{float(score):.2f}%",
        }


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
    # The card's comparison group, on a list of "2+ setups" Tests only ("": not shown).
    group_href: str = ""

    @classmethod
    def of(cls, card: FeedCard, *, with_group: bool = False) -> CardView:
        review = str(card.review_state)
        return cls(
            **cls.fields_of(card),
            id=card.id,
            status=status_label("public", review),
            status_color=review_color(review),
            kind_list=list(card.evidence_kinds),
            score=score_text(card.review_count, card.review_score),
            title_marks=MarkPart.of(card.title_marks),
            excerpt_marks=MarkPart.of(card.excerpt_marks),
            group_href=card.group_url if with_group else "",
        )
