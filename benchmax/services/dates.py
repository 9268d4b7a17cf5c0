"""Every date the product shows or sends, formatted here and only here.

Service DTOs carry ``datetime``s (UTC-aware once read from a row); what leaves the process is
decided at the edge: ISO 8601 with ``+00:00`` in the JSON API, and a few fixed forms in pages.
"""

from __future__ import annotations

import dataclasses
import math
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Annotated, Any

from pydantic import WithJsonSchema

from benchmax.models._base import as_utc

# A field that carries ``iso(...)`` text rather than a datetime: its JSON Schema says so.
IsoText = Annotated[str, WithJsonSchema({"type": "string", "format": "date-time"})]


def iso(moment: datetime | None) -> str | None:
    """The JSON API's form: ISO 8601 in UTC, or None."""
    return as_utc(moment).isoformat() if moment else None


def internet_time(moment: datetime) -> str:
    """RFC 3339 in UTC to the second with a ``Z`` (``2027-05-30T12:00:00Z``), the form files
    read by other programs use (``/.well-known/security.txt``'s ``Expires``)."""
    return as_utc(moment).strftime("%Y-%m-%dT%H:%M:%SZ")


def http_date(moment: datetime) -> str:
    """RFC 9110's HTTP-date (``Wed, 02 Dec 2026 09:00:00 GMT``): Last-Modified's form."""
    return format_datetime(as_utc(moment).replace(microsecond=0), usegmt=True)


def seconds_until(moment: datetime, now: datetime) -> int:
    """Whole seconds from ``now`` to ``moment``, at least 1: a Retry-After that is never 0."""
    return max(1, math.ceil((as_utc(moment) - now).total_seconds()))


def next_utc_day(moment: datetime) -> datetime:
    """Midnight UTC after ``moment``, when the daily limits start again."""
    day = as_utc(moment).replace(hour=0, minute=0, second=0, microsecond=0)
    return day + timedelta(days=1)


def json_ready(dto: Any) -> dict[str, Any]:
    """A dataclass as a JSON-ready dict, with every ``datetime`` (at any depth) in ISO form."""
    return {key: _jsonable(value) for key, value in dataclasses.asdict(dto).items()}


class JsonReady:
    """A DTO whose JSON form is its fields, every ``datetime`` in ISO form (``json_ready``)."""

    def to_json(self) -> dict[str, Any]:
        return json_ready(self)


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return iso(value)
    if isinstance(value, dict):
        return {key: _jsonable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_jsonable(item) for item in value]
    return value


def human_date(moment: datetime | str | None) -> str:
    """A page's date: "01 Dec 2026, 09:30 UTC"; empty for none."""
    if moment is None or moment == "":
        return ""
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment)
    return as_utc(moment).strftime("%d %b %Y, %H:%M UTC")


def human_day(moment: datetime) -> str:
    """A page's day without the time: "01 Dec 2026"."""
    return as_utc(moment).strftime("%d %b %Y")


def chart_time(moment: datetime) -> str:
    """A chart axis tick: "09:30"."""
    return as_utc(moment).strftime("%H:%M")


@dataclasses.dataclass(frozen=True)
class Stamp:
    """A moment as pages show it: "5 min ago", with the exact time for hover and machines."""

    relative: str = ""
    exact: str = ""  # human_date's form
    iso: str = ""  # for <time datetime>


def relative_time(moment: datetime, now: datetime | None = None) -> str:
    """ "just now", "5 min ago", "3 hours ago", "2 days ago", and ahead "in 5 min", "in 2
    days" (when a draft expires); more than a month either way, the date itself."""
    seconds = ((now or datetime.now(UTC)) - as_utc(moment)).total_seconds()
    ahead, seconds = seconds < 0, abs(seconds)
    if seconds < 60:
        return "just now"
    for limit, unit, size in _RELATIVE_STEPS:
        if seconds < limit:
            count = int(seconds // size)
            words = f"{count} {unit if count == 1 or unit == 'min' else unit + 's'}"
            return f"in {words}" if ahead else f"{words} ago"
    return as_utc(moment).strftime("%d %b %Y")


_RELATIVE_STEPS = ((3600, "min", 60), (86_400, "hour", 3600), (30 * 86_400, "day", 86_400))


def stamp(moment: datetime | str | None, now: datetime | None = None) -> Stamp:
    """The one way a page gets a date; empty for none. Takes ``iso``'s text too, the form
    the moderation queues' items carry their times in."""
    if moment is None or moment == "":
        return Stamp()
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment)
    return Stamp(relative_time(moment, now), human_date(moment), iso(moment) or "")
