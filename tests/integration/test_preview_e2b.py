"""The E2B adapter against a local fake of both planes, with the real SDK."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmax.adapters.sandbox import SandboxError
from benchmax.adapters.sandbox.e2b import E2BSandbox
from benchmax.adapters.sandbox.limits import CPU_RLIMIT_MARGIN, MIB, Limits
from tests.support.fake_e2b import SANDBOX_ID, FakeE2B, result_json
from tests.support.preview_sites import WORKING, zip_of

pytestmark = pytest.mark.timeout(60)


def _sandbox(fake: FakeE2B) -> E2BSandbox:
    return E2BSandbox(
        api_key="e2b_" + "0" * 40,
        template_id="browser-web-v1-test",
        api_url=fake.url,
        sandbox_url=fake.url,
    )


def _site(tmp_path: Path) -> Path:
    path = tmp_path / "site.zip"
    path.write_bytes(zip_of(WORKING))
    return path


def test_internet_off_files_written_evaluator_run_artifacts_read_and_killed(
    tmp_path: Path,
) -> None:
    outputs = {"result.json": result_json(), "screenshot.png": b"\x89PNG fake"}
    site = _site(tmp_path)
    with FakeE2B(outputs) as fake:
        labels = {"benchmax_evaluation": "e1", "benchmax_test": "t1"}
        output = _sandbox(fake).evaluate(site, 30, labels=labels)
    created = fake.created[0]
    assert created["allow_internet_access"] is False
    assert created["metadata"] == labels
    assert created["autoPause"] is False  # on timeout: killed, not paused
    assert created["timeout"] <= 30 + 30
    assert created["templateID"] == "browser-web-v1-test"
    assert fake.files["/tmp/site.zip"] == site.read_bytes()
    assert any("/opt/evaluator/evaluate.py" in command for command in fake.commands)
    assert output.result["status"] == "ok"
    assert output.files["screenshot.png"] == b"\x89PNG fake"
    assert fake.killed == [SANDBOX_ID]


def test_killed_even_when_the_evaluator_fails(tmp_path: Path) -> None:
    with FakeE2B({}, exit_code=1) as fake, pytest.raises(SandboxError):
        _sandbox(fake).evaluate(_site(tmp_path), 30)
    assert fake.killed == [SANDBOX_ID]


def test_an_open_sandbox_fails_closed(tmp_path: Path) -> None:
    outputs = {"result.json": result_json(status="failed", reason="egress_open")}
    with FakeE2B(outputs) as fake, pytest.raises(SandboxError) as refused:
        _sandbox(fake).evaluate(_site(tmp_path), 30)
    assert refused.value.code == "egress_open"
    assert fake.killed == [SANDBOX_ID]


@pytest.mark.parametrize(
    ("exit_code", "limit"),
    [(128 + 9, "memory_limit"), (128 + 24, "cpu_limit"), (128 + 25, "file_size_limit")],
)
def test_an_evaluator_killed_by_a_limit_is_the_sites_result(
    tmp_path: Path, exit_code: int, limit: str
) -> None:
    """The VM's out-of-memory killer (SIGKILL), RLIMIT_CPU (SIGXCPU) and RLIMIT_FSIZE
    (SIGXFSZ) end the evaluator as the local sandbox's limits do: a result naming the limit,
    not a sandbox fault to retry."""
    limits = Limits(cpu_seconds=30, file_bytes=50 * MIB)
    with FakeE2B({}, exit_code=exit_code) as fake:
        sandbox = _sandbox(fake)
        sandbox.limits = limits
        output = sandbox.evaluate(_site(tmp_path), 30)
    assert output.result["status"] == "failed"
    assert output.result["reason"] == limit
    assert output.files == {}
    command = fake.commands[0]
    assert f"--cpu=30:{30 + CPU_RLIMIT_MARGIN}" in command
    assert f"--fsize={50 * MIB}" in command
    assert fake.killed == [SANDBOX_ID]
