"""Filtering by declared setup — family, model, harness, reasoning — on any table that copies it.

The feed filters ``test`` and the leaderboard filters a snapshot's rows (which copy the setup
at the cutoff); both go through here so a label finds the same Tests in both places. A model
or harness filter naming a catalog entry matches the Tests linked to it; any other text
matches Tests declaring a label with the same normalised key.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from sqlalchemy import ColumnElement, false
from sqlmodel import Session, col, select

from benchmax.models import ModelFamily
from benchmax.services.labels import label_key, resolve_harness_id, resolve_model_id


@dataclass(frozen=True)
class SetupColumns:
    """Where a table keeps the declared setup's links and keys."""

    family_id: Any
    catalog_model_id: Any
    model_key: Any
    harness_id: Any
    harness_key: Any
    reasoning_key: Any

    @classmethod
    def of(cls, table: Any) -> SetupColumns:
        """The columns of a table that names them as ``test`` does."""
        return cls(*(getattr(table, column.name) for column in fields(cls)))


@dataclass(frozen=True)
class SetupFilters:
    """The declared-setup part of a list's filters; empty strings mean "any"."""

    family: str = ""
    model: str = ""
    harness: str = ""
    reasoning: str = ""


# One filter as the column it compares and the value the column must equal; a value of None
# matches nothing (a label of punctuation alone has no key).
FilterPart = tuple[str, Any]


def _catalog_or_key(catalog_id: str | None, link: str, key_column: str, text: str) -> FilterPart:
    """Catalog-linked rows when the text names an entry, else rows declaring the same key."""
    if catalog_id is not None:
        return link, catalog_id
    return key_column, label_key(text, 200) or None


def setup_parts(session: Session, filters: SetupFilters) -> list[FilterPart] | None:
    """The non-empty filters as (``SetupColumns`` field, value) pairs, or None when the named
    family does not exist. The values are looked up here; the SQL is made from the pairs by
    ``condition``, with the values inline or bound when the statement runs."""
    parts: list[FilterPart] = []
    if filters.family:
        slug = filters.family
        family_id = session.exec(select(ModelFamily.id).where(ModelFamily.slug == slug)).first()
        if family_id is None:
            return None
        parts.append(("family_id", family_id))
    if filters.model:
        model_id = resolve_model_id(session, filters.model)
        parts.append(_catalog_or_key(model_id, "catalog_model_id", "model_key", filters.model))
    if filters.harness:
        harness_id = resolve_harness_id(session, filters.harness)
        parts.append(_catalog_or_key(harness_id, "harness_id", "harness_key", filters.harness))
    if filters.reasoning:
        parts.append(("reasoning_key", label_key(filters.reasoning, 100) or None))
    return parts


def condition(column: Any, value: Any) -> ColumnElement[bool]:
    """``column`` equal to ``value`` (a value or a ``bindparam``); None matches no row."""
    return col(column) == value if value is not None else false()


def setup_conditions(
    session: Session, columns: SetupColumns, filters: SetupFilters
) -> list[ColumnElement[bool]] | None:
    """SQL conditions for the non-empty filters, or None when the named family does not exist."""
    parts = setup_parts(session, filters)
    if parts is None:
        return None
    return [condition(getattr(columns, name), value) for name, value in parts]
