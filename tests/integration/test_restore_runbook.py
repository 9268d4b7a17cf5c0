"""docs/backup-restore.md, step by step, on both engines: back up, restore into new
resources, switch over, verify the same backup (exit 0), and sign in again.

Every step runs the ``benchmax`` command the runbook names, with a context built from the
settings the runbook tells the owner to set, exactly as a fresh process would.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session

from benchmax.adapters.auth import LocalIssuer, build_verifier, local_subject
from benchmax.cli.main import main
from benchmax.context import AppContext
from benchmax.models import Role
from benchmax.services.accounts import current_user
from benchmax.services.backup import SIGNING_KEY_NAME
from benchmax.services.jobs.liveness import beat
from benchmax.settings import Settings
from tests.conftest import _pg_admin, _pg_url
from tests.integration.test_backup_drill import build_world
from tests.support.factories import make_user
from tests.support.s3server import make_s3_settings

OWNER = "drillowner"


def _settings(data_dir: Path, **values: Any) -> Settings:
    return Settings(_env_file=None, env="test", data_dir=data_dir, preview_sandbox="off", **values)


def _run(capsys: pytest.CaptureFixture[str], settings: Settings, *argv: str) -> tuple[int, str]:
    ctx = AppContext.from_settings(settings)
    try:
        status = main(list(argv), ctx)
    finally:
        ctx.engine.dispose()
    captured = capsys.readouterr()
    return status, captured.out + captured.err


def _old_system(settings: Settings) -> str:
    """A little of everything, an owner who signs in locally, and their session token."""
    ctx = AppContext.from_settings(settings)  # creates the local sign-in key, as `dev` does
    try:
        build_world(ctx.engine, ctx.storage)
        with Session(ctx.engine) as session:
            make_user(session, handle=OWNER, auth_subject=local_subject(OWNER), role=Role.OWNER)
            session.commit()
    finally:
        ctx.engine.dispose()
    return LocalIssuer(settings).mint(local_subject(OWNER))


def _follow_runbook(
    capsys: pytest.CaptureFixture[str],
    old: Settings,
    restore_target: list[str],
    switched: Settings,
) -> None:
    token = _old_system(old)

    # When to back up: `benchmax backup create` (exit 0 = written and read back intact).
    status, out = _run(capsys, old, "backup", "create")
    assert status == 0, out
    assert "stored backup read back intact" in out
    assert "holds the local sign-in key" in out  # the clear warning
    folder = out.split("manifest: private/backups/", 1)[1].split("/", 1)[0]

    # Restore into new resources, reading the backup from the configured (old) storage.
    status, out = _run(capsys, old, "backup", "restore", folder, *restore_target)
    assert status == 0, out
    assert "the restored system matches the manifest" in out
    assert f"local sign-in key restored to {switched.resolved_key_path}" in out

    # Switch over: the settings now name the new resources; verify the same backup.
    status, out = _run(capsys, switched, "backup", "verify", folder)
    assert status == 0, out
    assert "matches the manifest" in out

    # Sign in again: the owner's session still verifies, and still as the owner.
    assert switched.resolved_key_path.read_bytes() == old.resolved_key_path.read_bytes()
    ctx = AppContext.from_settings(switched)
    try:
        verifier = build_verifier(switched)
        fresh = LocalIssuer(switched).mint(local_subject(OWNER))
        with Session(ctx.engine) as session:
            for credential in (token, fresh):
                headers = {"Authorization": f"Bearer {credential}"}
                user = current_user(session, verifier, headers, switched)
                assert user is not None
                assert (user.handle, user.role) == (OWNER, Role.OWNER)
    finally:
        ctx.engine.dispose()

    # Roll back stays possible: the old system still matches its backup, though its workers
    # kept writing heartbeats meanwhile.
    ctx = AppContext.from_settings(old)
    with ctx.jobs.session() as session:
        beat(session, "host:1")
    ctx.engine.dispose()
    status, out = _run(capsys, old, "backup", "verify", folder)
    assert status == 0, out


def test_runbook_on_the_embedded_default(
    tmp_path: Path, sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    old = _settings(tmp_path / "var", database_url=sqlite_url)  # migrated, as `dev` leaves it
    restored = tmp_path / "var-restored"
    target = [
        "--database-url",
        f"sqlite:///{restored / 'benchmax.db'}",
        "--storage-dir",
        str(restored / "objects"),
    ]
    _follow_runbook(capsys, old, target, _settings(restored))
    assert (restored / "keys" / SIGNING_KEY_NAME).stat().st_mode & 0o077 == 0


@pytest.fixture
def restore_database() -> Iterator[str]:
    name = f"bmx_runbook_{uuid.uuid4().hex[:10]}"
    _pg_admin(f'CREATE DATABASE "{name}"')  # step 1: an empty database
    yield _pg_url(name)
    _pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_runbook_on_postgres_and_s3(
    tmp_path: Path,
    postgres_url: str,
    restore_database: str,
    s3_endpoint: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source, fresh = make_s3_settings(s3_endpoint), make_s3_settings(s3_endpoint)  # empty bucket
    storage: dict[str, Any] = {
        "storage_backend": "s3",
        "s3_endpoint_url": s3_endpoint,
        "s3_region": "us-east-1",
        "s3_access_key_id": source.s3_access_key_id,
        "s3_secret_access_key": source.s3_secret_access_key,
    }
    old = _settings(
        tmp_path / "var", database_url=postgres_url, s3_bucket=source.s3_bucket, **storage
    )
    new_keys = tmp_path / "var-restored" / "keys" / SIGNING_KEY_NAME
    target = [
        "--database-url",
        restore_database,
        "--s3-bucket",
        fresh.s3_bucket,
        "--s3-endpoint-url",
        s3_endpoint,
        "--key-path",
        str(new_keys),
    ]
    switched = _settings(
        tmp_path / "var-restored",
        database_url=restore_database,
        s3_bucket=fresh.s3_bucket,
        **storage,
    )
    _follow_runbook(capsys, old, target, switched)
