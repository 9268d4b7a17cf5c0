"""Alembic environment: the URL comes from BenchMax settings or ``-x database_url=...``."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import benchmax.models  # noqa: F401  (registers every table on the metadata)
from benchmax.db import make_engine
from benchmax.search_index import is_search_object
from benchmax.settings import get_settings

target_metadata = SQLModel.metadata


def _url() -> str:
    override = context.get_x_argument(as_dictionary=True).get("database_url")
    return (
        override
        or context.config.attributes.get("database_url")
        or (get_settings().resolved_database_url)
    )


def _include_name(name: str | None, type_: str, parents: dict[str, str | None]) -> bool:
    """Leave the engine-specific search objects (benchmax/search_index.py) out of comparisons."""
    return not is_search_object(name, type_, parents.get("table_name"))


def run_migrations_offline() -> None:
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connectable = context.config.attributes.get("connection")
    if connectable is not None:
        _run(connectable)
        return
    engine = make_engine(_url())
    with engine.connect() as connection:
        _run(connection)
    engine.dispose()


def _run(connection: object) -> None:
    context.configure(
        connection=connection,  # type: ignore[arg-type]
        target_metadata=target_metadata,
        render_as_batch=True,
        compare_type=True,
        include_name=_include_name,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
