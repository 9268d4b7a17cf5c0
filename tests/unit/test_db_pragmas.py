"""Every SQLite connection gets the settings the app relies on, not SQLite's defaults."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text

from benchmax.db import make_engine


def test_each_sqlite_connection_has_wal_foreign_keys_and_a_large_page_cache(
    tmp_path: Path,
) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'pragmas.db'}")
    try:
        for _ in range(2):  # a second, pooled or new, connection is set up the same way
            with engine.connect() as conn:
                values = {
                    name: conn.execute(text(f"PRAGMA {name}")).scalar_one()
                    for name in ("journal_mode", "foreign_keys", "synchronous", "cache_size")
                }
            # synchronous 1 is NORMAL; cache_size is in KiB when negative: 64 MiB, not 2 MiB.
            assert values == {
                "journal_mode": "wal",
                "foreign_keys": 1,
                "synchronous": 1,
                "cache_size": -65536,
            }
    finally:
        engine.dispose()
