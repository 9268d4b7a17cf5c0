"""card excerpt: the heads of each Test's prompt and output, stored for the feed's cards

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-01 15:50:00

A feed card shows a title (an untitled Test's is its prompt's first line) and, on a search
page, a short window around the first match in the prompt or the output. Reading those from
``prompt`` and ``output_text`` means fetching texts that can be hundreds of kilobytes for every
card, so the database keeps ``card_excerpt``: the first 1,000 characters of the prompt, the
unit separator (U+001F, taken out of the prompt's head so it splits unambiguously), then the
first 1,000 characters of the output. ``benchmax.search_index`` names it and splits it.

* SQLite: triggers after insert and after an update of either text (a stored generated column
  cannot be added to an existing table). Plain ``ADD COLUMN``, so the table, its rowids and
  the full-text triggers of 0009 stay as they are; existing rows are backfilled once.
* PostgreSQL: a stored generated column, so no write can leave it stale.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

HEAD = 1000
SQLITE_VALUE = (
    f"replace(substr({{p}}prompt, 1, {HEAD}), char(31), ' ') || char(31) "
    f"|| substr({{p}}output_text, 1, {HEAD})"
)
PG_VALUE = f"replace(left(prompt, {HEAD}), chr(31), ' ') || chr(31) || left(output_text, {HEAD})"


def _refresh(name: str, event: str) -> str:
    value = SQLITE_VALUE.format(p="new.")
    return f"""CREATE TRIGGER test_card_excerpt_{name} AFTER {event} ON test BEGIN
        UPDATE test SET card_excerpt = {value} WHERE rowid = new.rowid;
    END"""


SQLITE_UP = [
    "ALTER TABLE test ADD COLUMN card_excerpt TEXT",
    f"UPDATE test SET card_excerpt = {SQLITE_VALUE.format(p='')}",
    _refresh("insert", "INSERT"),
    _refresh("text", "UPDATE OF prompt, output_text"),
]
SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS test_card_excerpt_text",
    "DROP TRIGGER IF EXISTS test_card_excerpt_insert",
    "ALTER TABLE test DROP COLUMN card_excerpt",
]
PG_UP = [f"ALTER TABLE test ADD COLUMN card_excerpt text GENERATED ALWAYS AS ({PG_VALUE}) STORED"]
PG_DOWN = ["ALTER TABLE test DROP COLUMN card_excerpt"]


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    for statement in SQLITE_UP if sqlite else PG_UP:
        op.execute(statement)


def downgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    for statement in SQLITE_DOWN if sqlite else PG_DOWN:
        op.execute(statement)
