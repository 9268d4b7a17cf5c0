"""full-text search on both engines, and one index per feed filter

Revision ID: 0009
Revises: 0006
Create Date: 2026-12-01 11:00:00

Search is the engine's own machinery, kept in sync by the database itself so no code path
can forget it:

* SQLite: an FTS5 table ``test_fts`` (columns title, setup, prompt, output; unicode61 with
  diacritics removed; prefix indexes for 2 and 3 characters) whose external content is the
  view ``test_search_source`` over the *public* Tests, so the text is not stored twice.
  Triggers add a Test when it becomes public, re-index it when its searched text changes
  and take it out when it stops being public or is deleted. The FTS rowid is the Test's
  rowid; VACUUM keeps rowids on this SQLite, and ``INSERT INTO test_fts(test_fts)
  VALUES('rebuild')`` rebuilds the index from the view if it ever had to.
* PostgreSQL: a text search configuration ``benchmax_search`` (``simple`` with ``unaccent``
  first, so "resume" finds "résumé" as FTS5 does) and a generated ``tsvector`` column ``search_vector`` (weights A title, B declared
  setup, C prompt, D output; the first 100,000 characters of prompt and output, so a
  500,000-character output stays under the tsvector's 1 MB limit) with a GIN index.

Both split text into runs of letters and digits (PostgreSQL's parser would otherwise keep
"gpt-5" and "4.5" whole, where FTS5 splits them), so one query means the same on both.

The single-column indexes on the filter columns are replaced by composite ones
``(filter column, state, published_at, id)``: a filtered feed page is then a range scan in
the feed's order, like the unfiltered one, instead of a lookup followed by a sort.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0009"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

FILTER_INDEXES = {  # new composite index -> the single-column index it replaces
    "ix_test_family_feed": ("family_id", "ix_test_family_id"),
    "ix_test_model_feed": ("catalog_model_id", "ix_test_catalog_model_id"),
    "ix_test_model_key_feed": ("model_key", "ix_test_model_key"),
    "ix_test_harness_feed": ("harness_id", "ix_test_harness_id"),
    "ix_test_harness_key_feed": ("harness_key", "ix_test_harness_key"),
    "ix_test_reasoning_feed": ("reasoning_key", "ix_test_reasoning_key"),
    "ix_test_status_feed": ("review_state", "ix_test_review_state"),
}

SETUP = "{p}.model_label || ' ' || {p}.model_version_label || ' ' || {p}.harness_label"
FTS_COLUMNS = "title, setup, prompt, output"


def _fts_values(p: str) -> str:
    return f"{p}.rowid, {p}.title, {SETUP.format(p=p)}, {p}.prompt, {p}.output_text"


SQLITE_UP = [
    f"""CREATE VIEW test_search_source AS
        SELECT test.rowid AS doc_id, test.title AS title, {SETUP.format(p="test")} AS setup,
               test.prompt AS prompt, test.output_text AS output
        FROM test WHERE test.state = 'public'""",
    f"""CREATE VIRTUAL TABLE test_fts USING fts5({FTS_COLUMNS},
        content='test_search_source', content_rowid='doc_id',
        tokenize='unicode61 remove_diacritics 2', prefix='2 3')""",
    f"""CREATE TRIGGER test_fts_insert AFTER INSERT ON test WHEN new.state = 'public' BEGIN
        INSERT INTO test_fts(rowid, {FTS_COLUMNS}) VALUES ({_fts_values("new")});
    END""",
    f"""CREATE TRIGGER test_fts_delete AFTER DELETE ON test WHEN old.state = 'public' BEGIN
        INSERT INTO test_fts(test_fts, rowid, {FTS_COLUMNS})
        VALUES ('delete', {_fts_values("old")});
    END""",
    f"""CREATE TRIGGER test_fts_update AFTER UPDATE OF
        state, title, model_label, model_version_label, harness_label, prompt, output_text
        ON test BEGIN
        INSERT INTO test_fts(test_fts, rowid, {FTS_COLUMNS})
        SELECT 'delete', {_fts_values("old")} WHERE old.state = 'public';
        INSERT INTO test_fts(rowid, {FTS_COLUMNS})
        SELECT {_fts_values("new")} WHERE new.state = 'public';
    END""",
    "INSERT INTO test_fts(test_fts) VALUES ('rebuild')",
]
SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS test_fts_update",
    "DROP TRIGGER IF EXISTS test_fts_delete",
    "DROP TRIGGER IF EXISTS test_fts_insert",
    "DROP TABLE IF EXISTS test_fts",
    "DROP VIEW IF EXISTS test_search_source",
]


def _pg_words(expression: str) -> str:
    return (
        f"to_tsvector('benchmax_search', regexp_replace({expression}, '[^[:alnum:]]+', ' ', 'g'))"
    )


PG_VECTOR = " || ".join(
    f"setweight({_pg_words(expression)}, '{weight}')"
    for expression, weight in (
        ("title", "A"),
        (SETUP.format(p="test").replace("test.", ""), "B"),
        ("left(prompt, 100000)", "C"),
        ("left(output_text, 100000)", "D"),
    )
)
PG_WORD_TOKENS = "asciiword, word, numword, asciihword, hword, numhword, hword_part, " + (
    "hword_numpart, hword_asciipart"
)
PG_UP = [
    # unaccent is a trusted extension (PostgreSQL 13+): the database owner may create it.
    "CREATE EXTENSION IF NOT EXISTS unaccent",
    "CREATE TEXT SEARCH CONFIGURATION benchmax_search (COPY = simple)",
    f"ALTER TEXT SEARCH CONFIGURATION benchmax_search ALTER MAPPING FOR {PG_WORD_TOKENS} "
    "WITH unaccent, simple",
    f"ALTER TABLE test ADD COLUMN search_vector tsvector GENERATED ALWAYS AS ({PG_VECTOR}) STORED",
    "CREATE INDEX ix_test_search_vector ON test USING gin (search_vector)",
]
PG_DOWN = [
    "DROP INDEX IF EXISTS ix_test_search_vector",
    "ALTER TABLE test DROP COLUMN IF EXISTS search_vector",
    "DROP TEXT SEARCH CONFIGURATION IF EXISTS benchmax_search",
]


def _is_sqlite() -> bool:
    return op.get_bind().dialect.name == "sqlite"


def upgrade() -> None:
    with op.batch_alter_table("test", schema=None) as batch_op:
        for name, (column, old) in FILTER_INDEXES.items():
            batch_op.drop_index(old)
            batch_op.create_index(name, [column, "state", "published_at", "id"], unique=False)
    for statement in SQLITE_UP if _is_sqlite() else PG_UP:
        op.execute(statement)


def downgrade() -> None:
    for statement in SQLITE_DOWN if _is_sqlite() else PG_DOWN:
        op.execute(statement)
    with op.batch_alter_table("test", schema=None) as batch_op:
        for name, (column, old) in FILTER_INDEXES.items():
            batch_op.drop_index(name)
            batch_op.create_index(old, [column], unique=False)
