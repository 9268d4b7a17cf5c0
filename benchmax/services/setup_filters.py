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


def key_matches(key_column: Any, text: str, max_length: int) -> ColumnElement[bool]:
    """Rows declaring a label with the same key; a label of punctuation alone matches none."""
    key = label_key(text, max_length)
    return key_column == key if key else false()


def catalog_or_key(
    catalog_id: str | None, link: Any, key_column: Any, text: str
) -> ColumnElement[bool]:
    """Catalog-linked rows when the text names an entry, else rows declaring the same key."""
    if catalog_id is not None:
        return link == catalog_id  # type: ignore[no-any-return]
    return key_matches(key_column, text, 200)


def setup_conditions(
    session: Session, columns: SetupColumns, filters: SetupFilters
) -> list[ColumnElement[bool]] | None:
    """SQL conditions for the non-empty filters, or None when the named family does not exist."""
    family, model, harness, reasoning = (
        filters.family,
        filters.model,
        filters.harness,
        filters.reasoning,
    )
    conditions: list[ColumnElement[bool]] = []
    if family:
        family_id = session.exec(select(ModelFamily.id).where(ModelFamily.slug == family)).first()
        if family_id is None:
            return None
        conditions.append(col(columns.family_id) == family_id)
    if model:
        model_id = resolve_model_id(session, model)
        conditions.append(
            catalog_or_key(model_id, columns.catalog_model_id, columns.model_key, model)
        )
    if harness:
        harness_id = resolve_harness_id(session, harness)
        conditions.append(
            catalog_or_key(harness_id, columns.harness_id, columns.harness_key, harness)
        )
    if reasoning:
        conditions.append(key_matches(columns.reasoning_key, reasoning, 100))
    return conditions
