"""Shared fixtures: real databases built by running the migrations, settings and factories.

Every database fixture runs ``alembic upgrade head`` once per session into a template and then
hands each test its own copy (a file copy for SQLite, ``CREATE DATABASE ... TEMPLATE`` for
PostgreSQL), so tests are isolated without paying for migrations each time.

The suite runs under pytest-xdist, each worker its own session: templates and databases carry
the process id or a random name, temporary directories are per worker, servers listen on
ports the OS picks, and every Redis key a test creates starts with ``REDIS_KEY_PREFIX``
(which names the worker). ``tests/support/needs.py`` marks each test with the services it uses.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import Engine
from sqlmodel import Session
from starlette.testclient import TestClient

from benchmax.adapters.auth import LocalIssuer
from benchmax.api import build_api
from benchmax.context import AppContext
from benchmax.db import make_engine
from benchmax.migrations import upgrade
from benchmax.models import User
from benchmax.settings import Settings
from tests.support.workers import WORKER

pytest_plugins = [
    "pytester",
    "tests.support.needs",
    "tests.support.s3server",
    "tests.support.jobs_fixtures",
    "tests.support.fake_judge",
]

ROOT = Path(__file__).resolve().parent.parent
PG_ADMIN_URL = os.environ.get(
    "BENCHMAX_TEST_PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
REDIS_URL = os.environ.get("BENCHMAX_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
# Streams and keys of one xdist worker never collide with another's (tests add a random part).
REDIS_KEY_PREFIX = f"benchmax-test:{WORKER or 'main'}:"


def run_migrations(url: str) -> None:
    upgrade(url)


def _pg_url(database: str) -> str:
    return PG_ADMIN_URL.rsplit("/", 1)[0] + "/" + database


def _pg_admin(sql: str) -> None:
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(sql)


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sqlite-template") / "template.db"
    run_migrations(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def postgres_template() -> Iterator[str]:
    name = f"bmx_tpl_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    _pg_admin(f'CREATE DATABASE "{name}"')
    run_migrations(_pg_url(name))
    # Connections to a template block CREATE DATABASE ... TEMPLATE; the engine used for
    # migrations is disposed by env.py, so none remain.
    yield name
    _pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def sqlite_url(sqlite_template: Path, tmp_path: Path) -> str:
    path = tmp_path / "benchmax.db"
    shutil.copyfile(sqlite_template, path)
    return f"sqlite:///{path}"


@pytest.fixture
def postgres_url(postgres_template: str) -> Iterator[str]:
    name = f"bmx_{uuid.uuid4().hex[:12]}"
    _pg_admin(f'CREATE DATABASE "{name}" TEMPLATE "{postgres_template}"')
    yield _pg_url(name)
    _pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def redis_url() -> str:
    """The test Redis server; name keys with ``REDIS_KEY_PREFIX``."""
    return REDIS_URL


@pytest.fixture(params=["sqlite"])
def database_url(request: pytest.FixtureRequest) -> str:
    """A migrated database; parametrize indirectly with ``["sqlite", "postgres"]`` for both."""
    fixture = "postgres_url" if request.param == "postgres" else "sqlite_url"
    return str(request.getfixturevalue(fixture))


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    with Session(engine, expire_on_commit=False) as session:
        yield session


@pytest.fixture(scope="session")
def local_issuer_key(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One local sign-in key per worker: making an RSA key costs more than most tests."""
    path = tmp_path_factory.mktemp("keys") / "local-issuer.pem"
    LocalIssuer(Settings(_env_file=None, env="test", local_issuer_key_path=path))
    return path


@pytest.fixture
def settings(tmp_path: Path, database_url: str, local_issuer_key: Path) -> Settings:
    """Development settings pointing at this test's database and a private data directory."""
    return Settings(
        _env_file=None,
        env="test",
        data_dir=tmp_path / "var",
        database_url=database_url,
        local_issuer_key_path=local_issuer_key,
        # Previews start a browser in a sandbox; the tests that want one turn it on.
        preview_sandbox="off",
    )


@pytest.fixture
def app_ctx(settings: Settings, engine: Engine) -> AppContext:
    """The application context on this test's database, settings and sign-in key; its
    storage is the one the settings choose (a directory under the test's data directory)."""
    return AppContext.from_settings(settings, engine=engine)


@pytest.fixture
def api_client(app_ctx: AppContext) -> Iterator[TestClient]:
    """The JSON API (``build_api``) on this test's application context."""
    with TestClient(build_api(app_ctx)) as client:
        yield client


@pytest.fixture
def session_headers(settings: Settings) -> Callable[[User], dict[str, str]]:
    """``Authorization`` headers carrying a fresh local session token for a user."""
    issuer = LocalIssuer(settings)
    return lambda user: {"Authorization": f"Bearer {issuer.mint(user.auth_subject)}"}
