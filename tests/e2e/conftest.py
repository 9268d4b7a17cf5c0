"""Browser tests: the real app (``benchmax dev``) served on spare ports, driven by Chromium.

The app runs exactly as ``make run`` runs it — a Reflex production build on one port and the
user-content service on 127.0.0.1 — with its data in a temporary directory. Tests create data
through the services against the same SQLite file, then look at it through the browser.

Under pytest-xdist each worker runs an app of its own, ten ports further on. Reflex bakes the
app's port into the front-end build, so each worker also builds into a work folder of its
own (``REFLEX_WEB_WORKDIR``); two builds sharing ``.web`` would overwrite each other.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import httpx
import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    ViewportSize,
    expect,
    sync_playwright,
)
from sqlalchemy import Engine

from benchmax.db import make_engine
from benchmax.settings import Settings
from tests.support.fake_judge import FakeJudge
from tests.support.judge_helpers import JUDGE_KEY, calibration_set
from tests.support.workers import WORKER, WORKER_INDEX

ROOT = Path(__file__).resolve().parents[2]
APP_PORT = int(os.environ.get("BENCHMAX_E2E_PORT", "3100")) + 10 * WORKER_INDEX
UC_PORT = APP_PORT + 1
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("BENCHMAX_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE: ViewportSize = {"width": 390, "height": 844}
# Playwright's assertions wait 5 s by default, its actions as long as the context says (20 s).
# A step change is a server round trip and a page load, which on two busy cores can take
# longer than 5 s; an assertion should wait as long as the action before it may.
expect.set_options(timeout=15_000)
OWNER_HANDLE = "e2e-owner"
DESKTOP: ViewportSize = {"width": 1280, "height": 900}
# The colour schemes the pages are drawn and checked in (Playwright's color_scheme).
Theme = Literal["light", "dark"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.e2e)


@dataclass(frozen=True)
class LiveApp:
    url: str
    usercontent_url: str
    data_dir: Path
    settings: Settings
    engine: Engine
    log_path: Path
    judge: FakeJudge
    """The app's AI judge endpoint; no snapshot is active until a test activates one."""


def _wait(url: str, process: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"benchmax dev exited with {process.returncode}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(1)
    raise TimeoutError(f"{url} did not become healthy")


@pytest.fixture(scope="session")
def live_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveApp]:
    data_dir = tmp_path_factory.mktemp("e2e-var")
    log_path = data_dir / "server.log"
    judge = FakeJudge()
    env = dict(os.environ)
    for key in [k for k in env if k.startswith("BENCHMAX_")]:
        env.pop(key)
    env.update(
        {
            "BENCHMAX_ENV": "test",
            "PYTHONUNBUFFERED": "1",
            "BENCHMAX_OWNER_SUBJECTS": f"local|{OWNER_HANDLE}",
            "BENCHMAX_JUDGE_BASE_URL": judge.base_url,
            "BENCHMAX_JUDGE_API_KEY": JUDGE_KEY,
            "BENCHMAX_JUDGE_TIMEOUT_SECONDS": "10",
            "BENCHMAX_JUDGE_CALIBRATION_SHA256": hashlib.sha256(calibration_set()).hexdigest(),
        }
    )
    if WORKER_INDEX:
        env["REFLEX_WEB_WORKDIR"] = f".web-{WORKER}"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "benchmax.cli",
                "dev",
                "--port",
                str(APP_PORT),
                "--usercontent-port",
                str(UC_PORT),
                "--data-dir",
                str(data_dir),
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        _wait(f"http://localhost:{APP_PORT}/healthz", process, timeout=600)
        settings = Settings(
            _env_file=None,
            env="test",
            data_dir=data_dir,
            app_origin=f"http://localhost:{APP_PORT}",
            usercontent_origin=f"http://127.0.0.1:{UC_PORT}",
            judge_base_url=judge.base_url,
            judge_api_key=JUDGE_KEY,
            judge_calibration_sha256=hashlib.sha256(calibration_set()).hexdigest(),
        )
        engine = make_engine(settings.resolved_database_url)
        yield LiveApp(
            url=f"http://localhost:{APP_PORT}",
            usercontent_url=f"http://127.0.0.1:{UC_PORT}",
            data_dir=data_dir,
            settings=settings,
            engine=engine,
            log_path=log_path,
            judge=judge,
        )
        engine.dispose()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
        judge.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@dataclass
class ConsoleGate:
    """Every console error and uncaught exception in the browser contexts one test opened.

    A page that logs an error or throws (a failed hydration, a missing resource, a broken
    handler) is broken for its reader even when every assertion passes, so the test fails."""

    problems: list[tuple[BrowserContext, str]] = field(default_factory=list)
    allowed: list[tuple[BrowserContext, re.Pattern[str]]] = field(default_factory=list)

    def watch(self, context: BrowserContext) -> BrowserContext:
        def on_console(message: ConsoleMessage) -> None:
            if message.type == "error":
                where = message.location.get("url", "") if message.location else ""
                self.problems.append((context, f"console error: {message.text} ({where})"))

        context.on("console", on_console)
        context.on("weberror", lambda e: self.problems.append((context, f"uncaught: {e.error}")))
        return context

    def unexpected(self) -> list[str]:
        return [
            text
            for context, text in self.problems
            if not any(c is context and p.search(text) for c, p in self.allowed)
        ]


# What Chromium logs for a request a test aborted on purpose (``route.abort()``).
BLOCKED_LOAD = r"^console error: Failed to load resource: net::ERR_FAILED "


def not_found_load(path: str) -> str:
    """What Chromium logs for a page at ``path`` that answers 404, as a test meant it to."""
    return (
        r"^console error: Failed to load resource: the server responded with a status of 404 "
        rf"\(Not Found\) \(http://[^/)]*{re.escape(path)}\)$"
    )


_GATE: list[ConsoleGate] = []  # the running test's gate (one test at a time per process)


def allow_console_error(target: Page | BrowserContext, pattern: str) -> None:
    """Let errors matching ``pattern`` pass in ``target``'s browser context, for a test that
    provokes them on purpose; every call says why in a comment beside it."""
    context = target.context if isinstance(target, Page) else target
    _GATE[-1].allowed.append((context, re.compile(pattern)))


@pytest.fixture(autouse=True)
def console_gate(browser: Browser, monkeypatch: pytest.MonkeyPatch) -> Iterator[ConsoleGate]:
    """Watches every context the test opens, through the fixtures or ``browser`` itself, and
    fails the test at teardown when any page logged an error or threw."""
    gate = ConsoleGate()
    new_context: Callable[..., BrowserContext] = browser.new_context

    def watched_context(*args: object, **kwargs: object) -> BrowserContext:
        return gate.watch(new_context(*args, **kwargs))

    def watched_page(*args: object, **kwargs: object) -> Page:
        # Browser.new_page opens a context of its own; it closes at teardown with the rest.
        return watched_context(*args, **kwargs).new_page()

    monkeypatch.setattr(browser, "new_context", watched_context)
    monkeypatch.setattr(browser, "new_page", watched_page)
    _GATE.append(gate)
    try:
        yield gate
    finally:
        _GATE.remove(gate)
    for context in browser.contexts:
        # Events still in flight arrive before a context has closed.
        context.close()
    problems = gate.unexpected()
    if problems:
        pytest.fail("The browser logged errors:\n" + "\n".join(problems), pytrace=False)


@pytest.fixture
def context(browser: Browser, console_gate: ConsoleGate) -> Iterator[BrowserContext]:
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(20_000)
    yield context
    context.close()


@pytest.fixture
def page(context: BrowserContext) -> Page:
    return context.new_page()


def wait_ready(page: Page) -> None:
    """Reflex pages render after the websocket hydrates; wait until the main column exists."""
    page.wait_for_selector("#main", state="attached")
    page.wait_for_function("() => !document.querySelector('.rt-Spinner, [aria-busy=\"true\"]')")


def signed_in_page(browser: Browser, app: LiveApp, handle: str) -> Page:
    """A page in a fresh browser context (its own cookies) signed in as ``handle``."""
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(20_000)
    page = context.new_page()
    sign_in(page, app, handle)
    return page


def sign_in(page: Page, app: LiveApp, handle: str, display_name: str = "") -> None:
    sign_in_at(page, app.url, handle, display_name)


def sign_in_at(page: Page, origin: str, handle: str, display_name: str = "") -> None:
    """Sign in with the local issuer's form on any served app (the stack's too)."""
    page.goto(f"{origin}/sign-in")
    wait_ready(page)
    page.fill("#handle", handle)
    if display_name:
        page.fill("#display_name", display_name)
    page.click("#sign-in-submit")
    # Attached, not visible: on a phone the handle sits inside the closed header menu.
    page.wait_for_selector("#nav-handle", state="attached")


def make_people(app: LiveApp, *roles: str) -> dict[str, str]:
    """One fresh account per role name, keyed by it; "moderator" and "reviewer" get that role."""
    from sqlmodel import Session

    from benchmax.models import Role
    from benchmax.services.accounts import grant_role
    from tests.support.factories import make_user

    suffix = secrets.token_hex(3)
    handles = {role: f"{role[:4]}{suffix}" for role in roles}
    with Session(app.engine) as session:
        for handle in handles.values():
            make_user(session, handle=handle, auth_subject=f"local|{handle}")
        session.commit()
        for role in ("moderator", "reviewer"):
            if role in handles:
                grant_role(session, handles[role], Role(role))
        session.commit()
    return handles
