"""Chromium's own sandbox is on inside the local sandbox, started as the evaluator starts it.

Playwright passes ``--no-sandbox`` unless asked otherwise, so this is not a given: the
evaluator runs unprivileged in bubblewrap precisely so that Chromium can sandbox its
renderers too. The check is Chromium's own report (``chrome://sandbox``), read inside the
same bubblewrap box the evaluator runs in.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from benchmax.adapters.sandbox.local import INSIDE_EVALUATOR, INSIDE_OUT, bwrap_command
from tests.support.preview_sites import NO_INDEX, zip_of

pytestmark = [pytest.mark.timeout(180), pytest.mark.sandbox]

CHECK = f"""
import sys
sys.path.insert(0, "{INSIDE_EVALUATOR}")
from playwright.sync_api import sync_playwright
import evaluate
with sync_playwright() as playwright:
    browser = playwright.chromium.launch(**evaluate.launch_options(), timeout=90_000)
    page = browser.new_page()
    page.goto("chrome://sandbox")
    page.wait_for_function("document.body.innerText.includes('sandboxed')")
    print(page.inner_text("body"))
    browser.close()
"""


def test_chromium_reports_itself_sandboxed_inside_bubblewrap(tmp_path: Path) -> None:
    site = tmp_path / "site.zip"
    site.write_bytes(zip_of(NO_INDEX))
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    (shared / "check.py").write_text(CHECK)
    (shared / "check.py").chmod(0o644)
    command = bwrap_command(site, shared, 60)
    script = command.index(f"{INSIDE_EVALUATOR}/evaluate.py")
    finished = subprocess.run(
        [*command[:script], f"{INSIDE_OUT}/check.py"],
        capture_output=True,
        text=True,
        timeout=150,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr[-2000:]
    report = finished.stdout
    assert "You are adequately sandboxed." in report
    assert "Seccomp-BPF sandbox\tYes" in report
