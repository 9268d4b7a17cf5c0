"""The feed's keyset orders other than relevance, and the cursors that page through them.

Each order is a descending walk of one index: newest by ``(published_at, id)``, most reviewed
by ``(review_count, published_at, id)`` and highest reviewed score by ``(review_score,
published_at, id)`` (Tests with no current review have no score and are not in that order).
A cursor is the last row's keys, base64url-encoded; the next page is "rows strictly after
that tuple", so page 1,000 costs what page 1 costs.

A cursor names its order by its shape: a newest cursor is ``stamp|id`` (as it always was, so
old links keep working), the others are ``tag|key|stamp|id`` and relevance cursors (see
``search``) ``r<score>|id``. Handing one order's cursor to another fails to decode, which is a
clear ``invalid_cursor`` 400 rather than a page that silently starts somewhere else. The
values are public, so a cursor needs no signature, only strict validation.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Select, tuple_
from sqlmodel import col

from benchmax.models import Test, TestState
from benchmax.models._base import as_utc, is_public_id
from benchmax.services.errors import Invalid

NEWEST = "newest"
MOST_REVIEWED = "most_reviewed"
TOP_SCORE = "top_score"
RELEVANCE = "relevance"
SORTS = (NEWEST, MOST_REVIEWED, TOP_SCORE, RELEVANCE)
# The orders a list of Tests offers without a search box (relevance needs search words): the
# feed's menu, a contributor's page, a model's page and a comparison group.
LIST_SORTS = (NEWEST, MOST_REVIEWED, TOP_SCORE)
SORT_LABELS = {
    NEWEST: "Newest",
    MOST_REVIEWED: "Most reviewed",
    TOP_SCORE: "Highest reviewed score",
    RELEVANCE: "Best match",
}
_MAX_CURSOR_LENGTH = 120
_MAX_KEY = 1_000_000_000


@dataclass(frozen=True)
class KeyOrder:
    """A keyed order: its cursor tag and the ``test`` column that leads its index."""

    tag: str
    column: str


KEY_ORDERS = {
    MOST_REVIEWED: KeyOrder("c", "review_count"),
    TOP_SCORE: KeyOrder("s", "review_score"),
}


def bad_cursor() -> Invalid:
    """A cursor this service did not issue (or an old one); the API answers 400."""
    return Invalid("invalid_cursor", "The cursor is malformed or expired.", "cursor")


def _pack(*parts: str) -> str:
    return base64.urlsafe_b64encode("|".join(parts).encode()).decode().rstrip("=")


def _unpack(cursor: str, count: int) -> list[str]:
    if len(cursor) > _MAX_CURSOR_LENGTH or not re.fullmatch(r"[A-Za-z0-9_-]+", cursor):
        raise bad_cursor()
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
    except (binascii.Error, UnicodeDecodeError) as error:
        raise bad_cursor() from error
    parts = raw.split("|")
    if len(parts) != count:
        raise bad_cursor()
    return parts


def _stamp_and_id(stamp: str, test_id: str) -> tuple[datetime, str]:
    try:
        published_at = datetime.fromisoformat(stamp)
    except ValueError as error:
        raise bad_cursor() from error
    if published_at.tzinfo is None or not is_public_id(test_id):
        raise bad_cursor()
    return published_at.astimezone(UTC), test_id


def _stamp(published_at: datetime) -> str:
    return as_utc(published_at).isoformat(timespec="microseconds")


def encode_cursor(published_at: datetime, test_id: str) -> str:
    """A newest-first cursor."""
    return _pack(_stamp(published_at), test_id)


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    """The ``(published_at, id)`` a newest-first cursor points after."""
    return _stamp_and_id(*_unpack(cursor, 2))


def encode_key_cursor(sort: str, key: int, published_at: datetime, test_id: str) -> str:
    return _pack(KEY_ORDERS[sort].tag, str(key), _stamp(published_at), test_id)


def decode_key_cursor(sort: str, cursor: str) -> tuple[int, datetime, str]:
    """The ``(key, published_at, id)`` a most-reviewed or top-score cursor points after."""
    tag, key, stamp, test_id = _unpack(cursor, 4)
    if tag != KEY_ORDERS[sort].tag or not re.fullmatch(r"[0-9]{1,10}", key):
        raise bad_cursor()
    if int(key) > _MAX_KEY:
        raise bad_cursor()
    return (int(key), *_stamp_and_id(stamp, test_id))


def check_cursor(sort: str, cursor: str) -> None:
    """Refuse a cursor that is not this keyed order's before any query runs."""
    if sort in KEY_ORDERS:
        decode_key_cursor(sort, cursor)
    else:
        decode_cursor(cursor)


CursorOf = Callable[[Any], str]


def in_order(sort: str) -> list[Any]:
    """What a Test needs to appear in ``sort`` at all: public, published, and for the score
    order a score."""
    conditions = [col(Test.state) == TestState.PUBLIC, col(Test.published_at).is_not(None)]
    if sort == TOP_SCORE:
        conditions.append(col(Test.review_score).is_not(None))
    return conditions


def keyset_page(
    statement: Select[Any], sort: str, cursor: str | None, limit: int
) -> tuple[Select[Any], CursorOf]:
    """``statement`` limited to public Tests in ``sort``'s order after ``cursor``, and how
    to make the cursor of a row (``limit + 1`` rows are asked for, to know if more follow)."""
    statement = statement.where(*in_order(sort)).limit(limit + 1)
    order = KEY_ORDERS.get(sort)
    if order is None:
        statement = statement.order_by(col(Test.published_at).desc(), col(Test.id).desc())
        if cursor:
            after = decode_cursor(cursor)
            statement = statement.where(tuple_(Test.published_at, Test.id) < tuple_(*after))
        return statement, lambda row: encode_cursor(row.published_at, row.id)
    key = col(getattr(Test, order.column))
    statement = statement.order_by(key.desc(), col(Test.published_at).desc(), col(Test.id).desc())
    if cursor:
        after_key = decode_key_cursor(sort, cursor)
        statement = statement.where(tuple_(key, Test.published_at, Test.id) < tuple_(*after_key))

    def cursor_of(row: Any) -> str:
        return encode_key_cursor(sort, getattr(row, order.column), row.published_at, row.id)

    return statement, cursor_of
