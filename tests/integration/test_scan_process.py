"""Scans in a child process: same verdicts as in-process, and a hang, a crash or a memory
balloon fail the job with a content-free code instead of taking the worker down."""

from __future__ import annotations

import functools
import hashlib
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from benchmax.adapters.storage.local import LocalStorage
from benchmax.models import EvidenceState, Job, JobState, TestState
from benchmax.services import pipeline, scan_child
from benchmax.services.jobs import JobContext, JobError
from benchmax.services.safety import SCAN_TOO_EXPENSIVE, SafetyLimits, ScanResult, scan_file
from benchmax.services.scan_process import (
    PASSED_ENVIRONMENT,
    SCAN_TIMEOUT,
    SCANNER_DIED,
    scan_in_child,
)
from tests.integration import scan_faults
from tests.support.submission_helpers import (
    COMPLETE,
    contributor,
    draft_with,
    drain,
    exhaust_only_job,
    load,
)
from tests.unit.safety.corpus import jpeg_with_gps

GIB = 1024 * 1024 * 1024
LIMITS = SafetyLimits()


def _scan(path: Path, name: str, **options: Any) -> ScanResult:
    settings: dict[str, Any] = {"timeout_seconds": 30, "memory_limit_bytes": 2 * GIB}
    return scan_in_child(path, name, LIMITS, **{**settings, **options})


def test_child_gives_the_in_process_verdict_and_its_sanitised_copy(tmp_path: Path) -> None:
    photo = tmp_path / "upload"
    photo.write_bytes(jpeg_with_gps())
    expected = scan_file(photo, "photo.jpg", LIMITS)
    assert expected.sanitized_path is not None
    expected.sanitized_path.unlink()

    result = _scan(photo, "photo.jpg")

    assert result.approved
    copy = result.sanitized_path
    assert copy is not None
    assert copy.parent == tmp_path
    assert hashlib.sha256(copy.read_bytes()).hexdigest() == result.sha256
    assert b"GPS" not in copy.read_bytes()
    assert (result.width, result.height, result.sha256) == (
        expected.width,
        expected.height,
        expected.sha256,
    )


def test_blocked_verdict_crosses_the_process_boundary(tmp_path: Path) -> None:
    page = tmp_path / "upload"
    page.write_bytes(b"<!doctype html><script>alert(1)</script>")
    result = _scan(page, "page.html")
    assert (result.verdict, result.block_code) == ("blocked", "type_html_not_allowed")


def test_hanging_scan_is_killed_at_the_deadline(tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(JobError) as failed:
        _scan(tmp_path, "x.txt", timeout_seconds=1, scanner=scan_faults.hang)
    assert failed.value.code == SCAN_TIMEOUT
    assert time.monotonic() - started < 10


def test_scan_killed_by_a_signal_reports_a_dead_scanner(tmp_path: Path) -> None:
    with pytest.raises(JobError) as failed:
        _scan(tmp_path, "x.png", scanner=scan_faults.die)
    assert failed.value.code == SCANNER_DIED


def test_memory_ceiling_blocks_a_ballooning_scan_as_too_expensive(tmp_path: Path) -> None:
    result = _scan(tmp_path, "x.zip", memory_limit_bytes=GIB, scanner=scan_faults.balloon)
    assert (result.verdict, result.block_code) == ("blocked", SCAN_TOO_EXPENSIVE)
    assert result.block_reason.startswith("“x.zip” is too expensive to check")


def test_cpu_budget_blocks_a_spinning_scan_well_before_the_deadline(tmp_path: Path) -> None:
    started = time.monotonic()
    result = _scan(tmp_path, "x.gif", cpu_seconds=1, scanner=scan_faults.spin)
    assert (result.verdict, result.block_code) == ("blocked", SCAN_TOO_EXPENSIVE)
    assert result.safe_name == "x.gif"
    assert time.monotonic() - started < 25  # the 30 s deadline never came into it


def test_hard_cpu_limit_blocks_a_scan_stuck_inside_c(tmp_path: Path) -> None:
    """No signal handler runs inside one long C call; the kernel's hard limit (budget plus
    grace) kills the child, and the CPU it used says it was the file's cost, not load."""
    result = _scan(
        tmp_path, "x.png", cpu_seconds=1, timeout_seconds=60, scanner=scan_faults.spin_in_c
    )
    assert (result.verdict, result.block_code) == ("blocked", SCAN_TOO_EXPENSIVE)


def test_a_deadline_hit_without_using_the_cpu_budget_is_retried_not_blocked(
    tmp_path: Path,
) -> None:
    """A scan that is slow only because the machine is busy (here: asleep) keeps its file."""
    with pytest.raises(JobError) as failed:
        _scan(tmp_path, "x.txt", timeout_seconds=1, cpu_seconds=20, scanner=scan_faults.hang)
    assert failed.value.code == SCAN_TIMEOUT


def test_scanner_error_reports_its_type_never_its_message(tmp_path: Path) -> None:
    with pytest.raises(JobError) as failed:
        _scan(tmp_path, "x.txt", scanner=scan_faults.fail_with_content)
    assert failed.value.code == "ValueError"
    assert scan_faults.CANARY not in repr(failed.value)


def test_child_sees_none_of_the_workers_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BENCHMAX_CLERK_SECRET_KEY", "sk_test_scan_child_must_not_see_this")
    result = _scan(tmp_path, "x.txt", scanner=scan_faults.report_environment)
    environment = result.metadata["env"]
    assert set(environment) <= set(PASSED_ENVIRONMENT)
    assert "sk_test_scan_child_must_not_see_this" not in str(environment)


def test_scan_timeouts_retry_then_show_processing_failed(
    engine: Engine, tmp_path: Path, job_ctx: JobContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    storage = LocalStorage(tmp_path / "objects")
    ctx = replace(
        job_ctx,
        settings=job_ctx.settings.model_copy(update={"scan_timeout_seconds": 1}),
        storage=storage,
    )
    user = contributor(engine)
    test_id = draft_with(engine, storage, user, COMPLETE, {"a.txt": b"hello\n"})
    monkeypatch.setattr(
        pipeline, "scan_in_child", functools.partial(scan_in_child, scanner=scan_faults.hang)
    )
    exhaust_only_job(ctx)
    with Session(engine) as session:
        job = session.exec(select(Job)).one()
    assert (job.state, job.attempts, job.last_error_code) == (JobState.DEAD, 2, SCAN_TIMEOUT)
    test, rows = load(engine, test_id)
    assert (test.state, test.failure_code) == (TestState.FAILED, "scan_failed")
    assert rows[0].state == EvidenceState.QUARANTINED  # kept for Retry


def test_a_file_over_its_cpu_budget_is_blocked_not_retried(
    engine: Engine, tmp_path: Path, job_ctx: JobContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    storage = LocalStorage(tmp_path / "objects")
    ctx = replace(
        job_ctx,
        settings=job_ctx.settings.model_copy(update={"scan_cpu_seconds": 1}),
        storage=storage,
    )
    user = contributor(engine)
    test_id = draft_with(
        engine, storage, user, COMPLETE, {"a.txt": b"hello\n", "b.gif": b"GIF89a spin"}
    )
    real = scan_in_child

    def spin_on_the_gif(path: Path, name: str, *args: Any, **options: Any) -> ScanResult:
        scanner = scan_faults.spin if name.endswith(".gif") else None
        return real(path, name, *args, **options, scanner=scanner)

    monkeypatch.setattr(pipeline, "scan_in_child", spin_on_the_gif)
    drain(ctx)
    jobs = _jobs(engine)
    assert all(job.state == JobState.DONE and not job.last_error_code for job in jobs)
    test, rows = load(engine, test_id)
    blocked = [row for row in rows if row.state == EvidenceState.BLOCKED]
    assert [row.block_code for row in blocked] == [SCAN_TOO_EXPENSIVE]
    assert "too expensive to check" in blocked[0].block_reason
    assert test.state == TestState.NEEDS_ATTENTION  # never "Processing failed"
    assert storage.head(blocked[0].quarantine_key) is None


def _jobs(engine: Engine) -> list[Job]:
    with Session(engine) as session:
        return list(session.exec(select(Job)))


@pytest.mark.parametrize(
    "reply",
    [
        b"",
        b"not json",
        b"[]",
        b'{"result": {"verdict": "published"}}',
        b'{"result": {"verdict": "approved", "kind": "image", "sanitized_path": "/etc/passwd"}}',
    ],
)
def test_a_malformed_or_escaping_reply_is_refused(tmp_path: Path, reply: bytes) -> None:
    with pytest.raises((ValueError, KeyError, TypeError)):
        scan_child.read_reply(reply, tmp_path / "upload")


def test_child_stops_itself_after_its_cpu_allowance(tmp_path: Path) -> None:
    """An orphaned child (its worker killed) cannot spin forever: the CPU limit ends it, and
    says so in a blocked verdict."""
    message = scan_child.request(
        tmp_path / "upload",
        "x.txt",
        LIMITS,
        memory_limit_bytes=2 * GIB,
        cpu_limit_seconds=1,
        scanner="tests.integration.scan_faults:spin",
    )
    started = time.monotonic()
    finished = subprocess.run(
        [sys.executable, "-m", "benchmax.services.scan_child"],
        input=message,
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert finished.returncode == 0
    outcome = scan_child.read_reply(finished.stdout, tmp_path / "upload")
    assert isinstance(outcome, ScanResult)
    assert outcome.block_code == SCAN_TOO_EXPENSIVE
    assert time.monotonic() - started < 10
