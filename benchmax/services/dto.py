"""Building a service DTO from a table row whose columns carry the DTO's field names."""

from __future__ import annotations

from dataclasses import fields
from datetime import datetime
from enum import StrEnum
from typing import Any, TypeVar

from benchmax.models._base import as_utc

T = TypeVar("T")


def _plain(value: Any) -> Any:
    """A column value as a DTO carries it: aware UTC times, enums as their text, copied JSON."""
    if isinstance(value, datetime):
        return as_utc(value)
    if isinstance(value, StrEnum):
        return str(value)
    if isinstance(value, list | dict):
        return type(value)(value)
    return value


def from_row(cls: type[T], row: Any, **values: Any) -> T:
    """``cls`` with each field not in ``values`` read from ``row``'s attribute of that name.

    Only what differs from the row is written out at the call, so a DTO that mirrors a table
    states its exceptions and nothing else.
    """
    copied = {
        field.name: _plain(getattr(row, field.name))
        for field in fields(cls)  # type: ignore[arg-type]
        if field.name not in values
    }
    return cls(**copied, **values)
