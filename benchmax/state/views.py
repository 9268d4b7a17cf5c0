"""Turn service DTOs into the view models and strings Reflex components render."""

from __future__ import annotations

from dataclasses import dataclass

from benchmax.components.badges import REVIEW_COLORS
from benchmax.context import app_context
from benchmax.services.dates import human_date
from benchmax.services.evidence_urls import evidence_url
from benchmax.services.feed import FeedCard
from benchmax.services.search import Segment
from benchmax.services.submissions import status_label


def size_text(size: int) -> str:
    """A byte count as people read it: 512 B, 2.7 KiB, 1.2 MiB."""
    value = float(size)
    for unit in ("B", "KiB", "MiB"):
        if value < 1024:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"


def attempts_text(attempts: int | None) -> str:
    if attempts is None:
        return "attempts not declared"
    return f"best of {attempts} attempt" + ("" if attempts == 1 else "s")


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
class CardView:
    """A feed card as the page shows it; thumbnails point at the user-content origin."""

    id: str
    href: str
    title: str
    handle: str
    contributor: str
    setup: str
    attempts: str
    status: str
    sample: bool
    status_color: str
    thumb: str  # empty: no thumbnail
    published: str
    kind_list: list[str]  # evidence kinds, each shown as an icon with its name
    score: str  # empty: not reviewed yet
    title_marks: list[MarkPart]  # search pages only
    excerpt_marks: list[MarkPart]

    @classmethod
    def of(cls, card: FeedCard) -> CardView:
        origin = app_context().settings.usercontent_origin
        thumb = ""
        if card.thumbnail_evidence_id:
            thumb = evidence_url(
                origin, card.thumbnail_evidence_id, card.thumbnail_safe_name or "image"
            )
        review = str(card.review_state)
        return cls(
            id=card.id,
            href=f"/tests/{card.id}",
            title=card.title,
            handle=card.contributor_handle,
            contributor=card.contributor_display_name or card.contributor_handle,
            setup=setup_text(
                card.model_label,
                card.model_version_label,
                card.harness_label,
                card.reasoning_label,
            ),
            attempts=attempts_text(card.attempts),
            status=status_label("public", review),
            sample=card.is_sample,
            status_color=REVIEW_COLORS.get(review, "gray"),
            thumb=thumb,
            published=human_date(card.published_at),
            kind_list=list(card.evidence_kinds),
            score=score_text(card.review_count, card.review_score),
            title_marks=MarkPart.of(card.title_marks),
            excerpt_marks=MarkPart.of(card.excerpt_marks),
        )
