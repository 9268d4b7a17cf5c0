"""Every date the product shows or sends, formatted here and only here.

Service DTOs carry ``datetime``s (UTC-aware once read from a row); what leaves the process is
decided at the edge: ISO 8601 with ``+00:00`` in the JSON API, and a few fixed forms in pages.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

from benchmax.models._base import as_utc


def iso(moment: datetime | None) -> str | None:
    """The JSON API's form: ISO 8601 in UTC, or None."""
    return as_utc(moment).isoformat() if moment else None


def internet_time(moment: datetime) -> str:
    """RFC 3339 in UTC to the second with a ``Z`` (``2027-05-30T12:00:00Z``), the form files
    read by other programs use (``/.well-known/security.txt``'s ``Expires``)."""
    return as_utc(moment).strftime("%Y-%m-%dT%H:%M:%SZ")


def json_ready(dto: Any) -> dict[str, Any]:
    """A dataclass as a JSON-ready dict, with every ``datetime`` (at any depth) in ISO form."""
    return {key: _jsonable(value) for key, value in dataclasses.asdict(dto).items()}


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


def clock_time(moment: datetime | None, *, missing: str = "—") -> str:
    """/operations' timestamp, to the second: "2026-12-01 09:30:05 UTC"."""
    return as_utc(moment).strftime("%Y-%m-%d %H:%M:%S UTC") if moment else missing


def chart_time(moment: datetime) -> str:
    """A chart axis tick: "09:30"."""
    return as_utc(moment).strftime("%H:%M")
