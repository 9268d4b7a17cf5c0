"""The E2B adapter against a local fake of both planes, with the real SDK."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmax.adapters.sandbox import SandboxError
from benchmax.adapters.sandbox.e2b import E2BSandbox
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
