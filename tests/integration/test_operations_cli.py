"""``benchmax jobs ...`` and ``benchmax backup ...`` from a shell, on the configured system."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine, update
from sqlmodel import Session, col, select

from benchmax.cli.main import main
from benchmax.context import AppContext
from benchmax.models import AuditEvent, BackupRecord, Job, JobState, Test
from benchmax.services.operations import CLI_ACTOR
from tests.support.factories import make_stored_evidence, make_test


@pytest.fixture
def configured(app_ctx: AppContext) -> Engine:
    """The CLI runs on this test's context: its database and a local storage directory."""
    return app_ctx.engine


def _dead(engine: Engine) -> int:
    with Session(engine) as session:
        job = Job(
            kind="safety_scan",
            subject_id="ev9",
            state=JobState.DEAD,
            attempts=5,
            last_error_code="ScannerCrashed",
        )
        session.add(job)
        session.commit()
        return job.id or 0


def test_jobs_list_requeue_and_discard(
    configured: Engine, app_ctx: AppContext, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = _dead(configured), _dead(configured)
    assert main(["jobs", "list", "--state", "dead"], app_ctx) == 0
    listing = capsys.readouterr().out
    assert "ScannerCrashed" in listing
    assert f"{first:>8}" in listing

    with pytest.raises(SystemExit):
        main(["jobs", "requeue", str(first)], app_ctx)  # --reason is required
    assert main(["jobs", "requeue", str(first), "--reason", "too short"], app_ctx) == 1
    assert main(["jobs", "requeue", str(first), "--reason", "Scanner fixed in 1.2"], app_ctx) == 0
    assert (
        main(["jobs", "discard", str(second), "--reason", "Evidence deleted on request"], app_ctx)
        == 0
    )
    assert (
        main(["jobs", "discard", str(first), "--reason", "It is not dead any more"], app_ctx) == 1
    )

    with Session(configured) as session:
        states = {job.id: job.state for job in session.exec(select(Job))}
        events = session.exec(select(AuditEvent).order_by(col(AuditEvent.id))).all()
    assert states == {first: JobState.PENDING, second: JobState.DISCARDED}
    assert [(e.action, e.actor_id) for e in events] == [
        ("job.requeue", CLI_ACTOR),
        ("job.discard", CLI_ACTOR),
    ]


def test_backup_create_then_verify_reports_differences_in_its_exit_status(
    configured: Engine, app_ctx: AppContext, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    storage = app_ctx.storage
    with Session(configured, expire_on_commit=False) as session:
        test = make_test(session)
        evidence = make_stored_evidence(session, storage, test, b"evidence bytes")
        session.commit()
        test_id = test.id
    assert main(["backup", "create"], app_ctx) == 0
    created = capsys.readouterr().out
    assert "stored backup read back intact" in created
    assert main(["backup", "verify"], app_ctx) == 0
    assert "matches the manifest" in capsys.readouterr().out

    storage.put(evidence.storage_key, [b"changed"])
    with configured.begin() as conn:
        conn.execute(update(Test).where(col(Test.id) == test_id).values(title="Changed"))
    assert main(["backup", "verify"], app_ctx) == 1
    report = capsys.readouterr().out
    assert "2 differences" in report
    assert f"object {evidence.storage_key}" in report
    assert "table test: row contents differ" in report
    with Session(configured) as session:
        record = session.exec(select(BackupRecord)).one()
    assert (record.verify_ok, record.verify_differences) == (False, 2)

    # Restoring into the live database is refused. Into fresh resources it restores, and its
    # verify catches that the source object changed after the backup.
    manifest = created.split("manifest: ", 1)[1].split()[0]
    target = tmp_path / "fresh"
    live_url = str(app_ctx.settings.resolved_database_url)
    fresh = ["--storage-dir", str(target / "objects")]
    assert main(["backup", "restore", manifest, "--database-url", live_url, *fresh], app_ctx) == 1
    assert "database is not empty" in capsys.readouterr().err
    fresh_url = f"sqlite:///{target / 'benchmax.db'}"
    assert main(["backup", "restore", manifest, "--database-url", fresh_url, *fresh], app_ctx) == 1
    restored = capsys.readouterr().out
    assert "verify found 1 differences" in restored
    assert f"object {evidence.storage_key}: " in restored
