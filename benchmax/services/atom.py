"""Atom feeds (RFC 4287) of new public Tests: everyone's, a model family's, a contributor's.

Built with ElementTree, so every value is escaped; characters XML 1.0 cannot carry at all
(most control characters, lone surrogates, U+FFFE/U+FFFF) are dropped first, since escaping
cannot make them legal and one would make the whole feed unreadable.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from urllib.parse import urlencode
from xml.etree import ElementTree as ET

from sqlmodel import Session, select

from benchmax.models import ModelFamily, User
from benchmax.services.dates import iso
from benchmax.services.errors import NotFound
from benchmax.services.feed import FILTER_NAMES, FeedCard, FeedFilters, list_feed
from benchmax.services.feed_order import NEWEST
from benchmax.services.labels import DECLARED_LABEL

ATOM_NS = "http://www.w3.org/2005/Atom"
FEED_SIZE = 50
FEED_PATH = "/api/v1/feeds/tests.atom"
# The list API's filters; the feed is always newest first, so it takes no sort or cursor.
FEED_FILTERS = FILTER_NAMES - {"sort"}
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


class UnknownFeedError(NotFound):
    """The family or contributor named does not exist; ``field`` says which."""

    def __init__(self, field: str) -> None:
        super().__init__("not_found", f"No such {field}.", field)


@dataclass(frozen=True)
class FeedSubject:
    title: str
    html_url: str
    self_url: str
    filters: FeedFilters


def xml_text(value: str) -> str:
    return _NOT_XML.sub("", value)


def feed_subject(session: Session, app_origin: str, query: Mapping[str, str]) -> FeedSubject:
    """What the feed is of: the list API's filters (``FEED_FILTERS``), newest first.
    UnknownFeedError for a family or handle that does not exist."""
    kept = {key: query[key] for key in sorted(FEED_FILTERS) if query.get(key)}
    self_url = f"{app_origin}{FEED_PATH}" + (f"?{urlencode(kept)}" if kept else "")
    filters = replace(FeedFilters.from_query(kept), sort=NEWEST)
    parts, html_url = [], f"{app_origin}/"
    if filters.family:
        name = session.exec(
            select(ModelFamily.name).where(ModelFamily.slug == filters.family)
        ).first()
        if name is None:
            raise UnknownFeedError("family")
        parts.append(name)
        html_url = f"{app_origin}/models/{filters.family}"
    if filters.contributor:
        user = session.exec(select(User).where(User.handle == filters.contributor)).first()
        if user is None:
            raise UnknownFeedError("contributor")
        parts.append(f"@{user.handle}")
        html_url = f"{app_origin}/u/{user.handle}"
    parts += [value for value in (filters.model, filters.harness, filters.reasoning) if value]
    if filters.q:
        parts.append(f"“{filters.q}”")
    title = "New Tests on BenchMax" + (f": {', '.join(parts)}" if parts else "")
    return FeedSubject(title, html_url, self_url, filters)


def _add(parent: ET.Element, tag: str, text: str | None = None, **attributes: str) -> ET.Element:
    element = ET.SubElement(
        parent, f"{{{ATOM_NS}}}{tag}", {k: xml_text(v) for k, v in attributes.items()}
    )
    if text is not None:
        element.text = xml_text(text)
    return element


def _setup(card: FeedCard) -> str:
    model = " ".join(part for part in (card.model_label, card.model_version_label) if part)
    attempts = f"{card.attempts} attempts" if card.attempts else "attempts not declared"
    return (
        f"{model} · {card.harness_label} · reasoning {card.reasoning_label} · {attempts}. "
        f"{DECLARED_LABEL}. Status: {card.review_state}."
    )


def _entry(feed: ET.Element, card: FeedCard, app_origin: str) -> None:
    entry = _add(feed, "entry")
    url = f"{app_origin}/tests/{card.id}"
    _add(entry, "id", url)
    _add(entry, "title", card.title)
    stamp = iso(card.published_at) or ""
    _add(entry, "updated", stamp)
    _add(entry, "published", stamp)
    _add(entry, "link", rel="alternate", type="text/html", href=url)
    author = _add(entry, "author")
    _add(author, "name", card.contributor_display_name or card.contributor_handle)
    _add(author, "uri", f"{app_origin}/u/{card.contributor_handle}")
    _add(entry, "summary", _setup(card), type="text")


def tests_feed(session: Session, app_origin: str, subject: FeedSubject) -> bytes:
    """The newest ``FEED_SIZE`` public Tests of ``subject`` as an Atom document."""
    cards = list_feed(session, subject.filters, None, FEED_SIZE).items
    ET.register_namespace("", ATOM_NS)
    feed = ET.Element(f"{{{ATOM_NS}}}feed")
    _add(feed, "id", subject.self_url)
    _add(feed, "title", subject.title)
    _add(feed, "updated", iso(cards[0].published_at if cards else _EPOCH) or "")
    _add(feed, "link", rel="self", type="application/atom+xml", href=subject.self_url)
    _add(feed, "link", rel="alternate", type="text/html", href=subject.html_url)
    _add(_add(feed, "author"), "name", "BenchMax contributors")
    _add(feed, "generator", "BenchMax")
    for card in cards:
        _entry(feed, card, app_origin)
    # typeshed answers Any for a named byte encoding; with "utf-8" it is always bytes.
    document: bytes = ET.tostring(feed, encoding="utf-8", xml_declaration=True)
    return document
