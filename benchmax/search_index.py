"""Names of the search and card objects that the database keeps and the models do not declare.

Migration 0009 builds the full-text index: on SQLite an FTS5 table (``test_fts``, with its
shadow tables and a ``test_search_source`` view as its external content), on PostgreSQL a
generated ``tsvector`` column on ``test`` with a GIN index. Migration 0016 adds
``test.card_excerpt``, the heads of the prompt and the output that feed cards and search
excerpts read instead of the whole texts (triggers on SQLite, a generated column on
PostgreSQL). They are engine-specific or derived by the database, so the shared SQLModel
metadata does not describe them — no code path can write them; Alembic's ``env.py`` asks
``is_search_object`` so that ``alembic check`` neither reports them as strays nor proposes
dropping them.
"""

from __future__ import annotations

FTS_TABLE = "test_fts"
FTS_SOURCE_VIEW = "test_search_source"
# FTS5 keeps each virtual table's data in shadow tables named after it.
_FTS_SHADOWS = ("data", "idx", "content", "docsize", "config")
SEARCH_VECTOR = "search_vector"
SEARCH_VECTOR_INDEX = "ix_test_search_vector"
TS_CONFIG = "benchmax_search"
CARD_EXCERPT = "card_excerpt"
# How many characters of each text the excerpt keeps (fixed by migration 0016).
CARD_HEAD_CHARS = 1000
_CARD_SEPARATOR = "\x1f"

_TABLES = frozenset({FTS_TABLE, FTS_SOURCE_VIEW, *(f"{FTS_TABLE}_{s}" for s in _FTS_SHADOWS)})


def is_search_object(name: str | None, type_: str, parent_table: str | None = None) -> bool:
    """Whether Alembic's comparison should leave this object alone (see the module docstring)."""
    if type_ == "table":
        return name in _TABLES
    if type_ == "column":
        return parent_table == "test" and name in (SEARCH_VECTOR, CARD_EXCERPT)
    if type_ == "index":
        return name == SEARCH_VECTOR_INDEX
    return False


def split_card_excerpt(value: str | None) -> tuple[str, str]:
    """The (prompt head, output head) a stored card excerpt holds."""
    prompt, _, output = (value or "").partition(_CARD_SEPARATOR)
    return prompt, output
