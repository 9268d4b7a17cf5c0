"""Column helpers shared by every table."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

from sqlalchemy import DateTime
from sqlmodel import Field

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"


def utcnow() -> datetime:
    """Timezone-aware now; every stored timestamp is UTC."""
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """A stored timestamp as aware UTC; SQLite hands them back naive."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def new_id() -> str:
    """A 16-character random public id: unguessable, so ids never reveal volume or order."""
    return "".join(secrets.choice(_ALPHABET) for _ in range(16))


def is_public_id(value: str) -> bool:
    """Whether ``value`` could be an id from ``new_id``; lets readers answer 404 without a query."""
    return len(value) == 16 and all(ch in _ALPHABET for ch in value)


def id_field() -> str:
    return Field(default_factory=new_id, primary_key=True, max_length=16)


def created_field(*, index: bool = False) -> datetime:
    return Field(
        default_factory=utcnow, sa_type=DateTime(timezone=True), nullable=False, index=index
    )


def time_field(*, index: bool = False) -> datetime | None:
    return Field(default=None, sa_type=DateTime(timezone=True), nullable=True, index=index)
