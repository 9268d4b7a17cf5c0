"""Names of the full-text search objects that the database keeps and the models do not declare.

Migration 0009 builds them: on SQLite an FTS5 table (``test_fts``, with its shadow tables and a
``test_search_source`` view as its external content), on PostgreSQL a generated ``tsvector``
column on ``test`` with a GIN index. They are engine-specific, so the shared SQLModel metadata
cannot describe them; Alembic's ``env.py`` asks ``is_search_object`` so that ``alembic check``
neither reports them as strays nor proposes dropping them.
"""

from __future__ import annotations

FTS_TABLE = "test_fts"
FTS_SOURCE_VIEW = "test_search_source"
# FTS5 keeps each virtual table's data in shadow tables named after it.
_FTS_SHADOWS = ("data", "idx", "content", "docsize", "config")
SEARCH_VECTOR = "search_vector"
SEARCH_VECTOR_INDEX = "ix_test_search_vector"
TS_CONFIG = "benchmax_search"

_TABLES = frozenset({FTS_TABLE, FTS_SOURCE_VIEW, *(f"{FTS_TABLE}_{s}" for s in _FTS_SHADOWS)})


def is_search_object(name: str | None, type_: str, parent_table: str | None = None) -> bool:
    """Whether Alembic's comparison should leave this object alone (see the module docstring)."""
    if type_ == "table":
        return name in _TABLES
    if type_ == "column":
        return parent_table == "test" and name == SEARCH_VECTOR
    if type_ == "index":
        return name == SEARCH_VECTOR_INDEX
    return False
