"""Process-wide singletons built from settings: the engine, storage and sign-in verifier.

States, API routes and the CLI get their collaborators here so that each is built once per
process and every caller shares the same configuration.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

from sqlalchemy import Engine
from sqlmodel import Session

from benchmax.adapters.auth import SessionVerifier, build_verifier
from benchmax.adapters.storage import ObjectStorage, build_storage
from benchmax.db import get_engine, session_scope
from benchmax.settings import Settings, get_settings


def settings() -> Settings:
    return get_settings()


def engine() -> Engine:
    return get_engine(get_settings().resolved_database_url)


@lru_cache(maxsize=1)
def storage() -> ObjectStorage:
    return build_storage(get_settings())


@lru_cache(maxsize=1)
def verifier() -> SessionVerifier:
    return build_verifier(get_settings())


@contextmanager
def db_session() -> Iterator[Session]:
    """A committed-on-success session on the configured database."""
    with session_scope(engine()) as session:
        yield session
