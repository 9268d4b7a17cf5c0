"""What a shared link says about itself before any script runs: tab title, description,
link-preview card and the first lines a reader sees.

Only a public Test (or an existing contributor) gets a preview; anything else — removed,
private, unknown, malformed — gets the generic one, so a URL never tells a stranger more than
the page would. The feed and a contributor page also get their first page of cards, read by
the feed's own service (``feed.list_feed``), which lists public Tests only. Values are plain
text here; the HTML step escapes them.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime

from sqlmodel import Session, col, select

from benchmax.models import EvidenceFile, EvidenceKind, EvidenceState, Test, TestState, User
from benchmax.models._base import is_public_id
from benchmax.services.accounts import find_user_by_handle
from benchmax.services.errors import ServiceError
from benchmax.services.evidence_urls import evidence_url
from benchmax.services.feed import FeedCard, FeedFilters, count_feed, list_feed, list_sort

SITE_NAME = "BenchMax"
GENERIC_TITLE = "BenchMax — community AI Tests"
GENERIC_DESCRIPTION = (
    "A public feed of community-run AI Tests: the prompt, the declared setup and the evidence."
)
_DESCRIPTION_CHARS = 200
PROMPT_PREVIEW_CHARS = 2_000


@dataclass(frozen=True)
class Preview:
    """One page's head and first paint. ``prompt`` is only set for a public Test; ``cards``
    is None on a page that lists none, else its first page (empty: nothing to list)."""

    title: str = GENERIC_TITLE
    description: str = GENERIC_DESCRIPTION
    kind: str = "website"  # og:type
    image: str = ""  # an absolute user-content URL, never this app
    facts: list[tuple[str, str]] = field(default_factory=list)  # twitter:label/data pairs
    heading: str = ""
    byline: str = ""
    prompt: str = ""
    cards: list[FeedCard] | None = None
    # A contributor's page: "12 Tests" and when they joined, as the live page shows them.
    count_text: str = ""
    joined: datetime | None = None


GENERIC = Preview()


def _plain(text: str) -> str:
    """Text without control or format characters (NUL, bidi overrides, zero-width marks):
    a chat app's preview must read as the words, not be reordered or hidden by them."""
    return "".join(
        char for char in text if char in "\n\t" or unicodedata.category(char) not in ("Cc", "Cf")
    )


def _shorten(text: str, limit: int) -> str:
    flat = " ".join(_plain(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _thumbnail(session: Session, test_id: str, origin: str) -> str:
    image = session.exec(
        select(EvidenceFile)
        .where(
            EvidenceFile.test_id == test_id,
            EvidenceFile.kind == EvidenceKind.IMAGE,
            EvidenceFile.state == EvidenceState.APPROVED,
        )
        .order_by(col(EvidenceFile.position), col(EvidenceFile.created_at), col(EvidenceFile.id))
    ).first()
    return evidence_url(origin, image.id, image.safe_name) if image else ""


def preview_of_test(session: Session, test_id: str, usercontent_origin: str) -> Preview:
    """The preview of ``/tests/{test_id}``: the Test's own only while it is public."""
    test = session.get(Test, test_id) if is_public_id(test_id) else None
    if test is None or test.state != TestState.PUBLIC:
        return GENERIC
    contributor = session.get(User, test.contributor_id)
    who = _plain(contributor.display_name or contributor.handle) if contributor else "someone"
    model = _plain(f"{test.model_label} {test.model_version_label}".strip()) or "not declared"
    title = _shorten(test.display_title, 200)
    return Preview(
        title=title,
        description=_shorten(f"Declared model: {model}. By {who}. {test.prompt}", 200),
        kind="article",
        image=_thumbnail(session, test.id, usercontent_origin),
        facts=[("Declared model", model), ("Contributor", who)],
        heading=title,
        byline=f"{model} · by {who}",
        prompt=_plain(test.prompt[:PROMPT_PREVIEW_CHARS]),
    )


def _first_cards(session: Session, query: Mapping[str, object], size: int) -> list[FeedCard]:
    """The first page the live list will show for ``query``; empty for filters it refuses
    (the page then says so itself)."""
    try:
        return list_feed(session, FeedFilters.from_query(query), None, size).items
    except ServiceError:
        return []


def preview_of_feed(session: Session, query: Mapping[str, object], page_size: int) -> Preview:
    """``/`` with its query: the generic tags and the first page of cards for its filters.
    "any" is the page's own word for an unset choice."""
    chosen = {key: value for key, value in query.items() if value not in ("any", ["any"])}
    return replace(GENERIC, cards=_first_cards(session, chosen, page_size))


def preview_of_profile(session: Session, handle: str, page_size: int, sort: object = "") -> Preview:
    """The preview of ``/u/{handle}``: a contributor who exists, with their first page of
    public Tests in the page's order (``?sort=``), else the generic one."""
    user = find_user_by_handle(session, handle[:64])
    if user is None:
        return GENERIC
    name = _plain(user.display_name or user.handle)
    return Preview(
        title=f"{name} (@{user.handle})",
        description=f"Public AI Tests shared on BenchMax by {name}.",
        kind="profile",
        heading=name,
        byline=f"@{user.handle}",
        cards=_first_cards(
            session, {"contributor": user.handle, "sort": list_sort(sort)}, page_size
        ),
        count_text=count_feed(session, FeedFilters(contributor=user.handle)).text,
        joined=user.created_at,
    )
