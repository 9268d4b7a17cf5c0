"""A contributor's browser follows its submission live while its event socket moves between
replicas, the page never reloaded.

The submission goes through the proxy with both workers down, so the Test cannot leave
processing yet. Then each replica is SIGKILLed in turn, the second only once the first is back:
whichever held the socket, the page ends up on a replica process started after the submission,
and with the other one down that process alone turns the same page to the published state once
the workers return. The public page is then opened from its link with only the other replica
up. A replica that dies leaves its sockets' records in Redis, so Reflex hands a page that
reconnects elsewhere a new session token and an empty state: what the page shows after a move
comes from its address and PostgreSQL (``WizardDraftState.on_load``), and that is what is checked.
"""

from __future__ import annotations

import re
import time
import uuid

import pytest
from playwright.sync_api import Page, WebSocket, expect, sync_playwright

from benchmax.stack.sample import sample_png
from benchmax.stack.topology import Stack
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, DESKTOP, sign_in_at, wait_ready
from tests.e2e.test_submit import _fill_steps_one_and_two, _upload
from tests.stack.client import StackClient

# The page asks for the Test's status every second (assets/autorefresh.js), so a live socket
# is heard from well within this; one whose replica was killed has closed long before.
QUIET_SECONDS = 2.0
# The last update of a (re)load, once the page's on_load handlers have all run.
HYDRATED = re.compile(r'"is_hydrated_rx_state_":\s*true')
# Reconnecting after a kill: Reflex's backoff, then the page loaded again on another replica.
AFTER_A_KILL_MS = 30_000
PUBLISHED_MS = 90_000


class EventSockets:
    """The page's Reflex event websockets as Chromium reports them, numbered as they open.

    Times are when Playwright hands the events over, which it does only during its own calls:
    ``mark`` makes such a call first, so nothing that came before the mark is stamped after it.
    """

    def __init__(self, page: Page) -> None:
        self.page = page
        self.opened_at: list[float] = []
        self.closed: set[int] = set()
        self.heard: dict[int, float] = {}
        self.hydrated: dict[int, float] = {}
        page.on("websocket", self._open)

    def _open(self, socket: WebSocket) -> None:
        if "/_event" not in socket.url:
            return
        number = len(self.opened_at)
        self.opened_at.append(time.monotonic())
        socket.on("close", lambda _: self.closed.add(number))
        socket.on("framereceived", lambda payload: self._frame(number, payload))

    def _frame(self, number: int, payload: str | bytes) -> None:
        self.heard[number] = time.monotonic()
        if isinstance(payload, str) and HYDRATED.search(payload):
            self.hydrated[number] = self.heard[number]

    def mark(self) -> float:
        self.page.wait_for_timeout(1)
        return time.monotonic()

    def _settled(self, number: int, since: float) -> bool:
        if number in self.closed:
            return False
        if self.opened_at[number] > since:  # a reconnect: it has loaded the page again
            return self.hydrated.get(number, 0.0) > since
        return self.heard.get(number, 0.0) > since + QUIET_SECONDS  # it outlived the kill

    def settled_after(self, since: float, timeout: float = 60.0) -> int:
        """The socket the page has settled on since ``since``: a new one whose reconnect has
        loaded the page again (its on_load handlers included), or an older one still heard
        from well after ``since``, so its replica was not the one killed."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.page.wait_for_timeout(250)
            settled = [n for n in range(len(self.opened_at)) if self._settled(n, since)]
            if settled:
                return max(settled)
        raise AssertionError(f"the page had no working event socket {timeout:.0f}s on")


def _still_processing(page: Page, draft: str) -> None:
    """The same Test's processing view: no sign-in prompt, no empty wizard, nothing reloaded."""
    expect(page.locator("#processing-status")).to_have_text("Processing", timeout=AFTER_A_KILL_MS)
    expect(page.locator("#processing-panel .file-row")).to_have_count(1)
    expect(page.locator("#processing-panel .file-name")).to_have_text("shot.png")
    expect(page.locator("#wizard-step-title")).to_have_count(0)
    expect(page.locator("#submit-sign-in")).to_have_count(0)
    assert f"draft={draft}" in page.url
    assert page.evaluate("() => window.__noReload === true")


def _respawn(stack: Stack, *names: str) -> None:
    for name in names:
        stack.respawn(name)
    stack.wait_ready(list(names), timeout=120)


@pytest.mark.timeout(600)  # the stack's start and front-end build count against it
def test_a_submission_through_one_replica_is_followed_live_in_the_browser_on_the_other(
    frontend_stack: Stack,
) -> None:
    stack = frontend_stack
    origin = stack.config.app_origin
    handle = f"live{uuid.uuid4().hex[:8]}"
    client = StackClient(stack, handle)  # the same account the browser signs in as
    title = f"followed live {uuid.uuid4().hex[:6]}"
    workers = [name for name in stack.processes if name.startswith("worker-")]
    for name in workers:
        stack.kill(name)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport=DESKTOP)
            page.set_default_timeout(20_000)
            sockets = EventSockets(page)
            sign_in_at(page, origin, handle)
            page.goto(f"{origin}/submit")
            wait_ready(page)
            _fill_steps_one_and_two(page, "Follow me across replicas.")
            page.fill("#field-output_text", "It works.")
            _upload(page, ("shot.png", "image/png", sample_png()), expected_rows=1)
            page.click("#wizard-next")
            expect(page.locator("#wizard-step-title")).to_have_text("Details")
            page.fill("#field-title", title)
            page.click("#wizard-next")
            expect(page.locator("#wizard-step-title")).to_have_text("Review & submit")
            page.click("#wizard-submit")
            expect(page.locator("#processing-panel")).to_be_visible()
            found = re.search(r"draft=(\w+)", page.url)
            assert found, page.url
            draft = found.group(1)
            page.evaluate("() => { window.__noReload = true; }")
            _still_processing(page, draft)
            first = sockets.settled_after(sockets.mark() - QUIET_SECONDS)

            since = sockets.mark()
            stack.kill("web-1")
            sockets.settled_after(since)
            _still_processing(page, draft)
            _respawn(stack, "web-1")
            since = sockets.mark()
            stack.kill("web-2")
            # Only the new web-1 is up: the socket settled on now was opened to it, after the
            # submit, and has run the page's on_load again.
            moved = sockets.settled_after(since)
            assert moved > first, (first, moved)
            assert sockets.closed
            _still_processing(page, draft)

            _respawn(stack, *workers)
            expect(page.locator("#processing-status")).to_have_text(
                "Your Test is public", timeout=PUBLISHED_MS
            )
            expect(page.locator("#processing-review-state")).to_contain_text("Awaiting review")
            assert moved not in sockets.closed  # this socket, on the new web-1, brought it
            assert len(sockets.opened_at) == moved + 1
            assert page.evaluate("() => window.__noReload === true")

            _respawn(stack, "web-2")
            stack.kill("web-1")
            page.click("#processing-public-link")
            page.wait_for_url(f"**/tests/{draft}")
            expect(page.locator("#test-title")).to_have_text(title, timeout=AFTER_A_KILL_MS)
            assert moved in sockets.closed
            assert len(sockets.opened_at) > moved + 1
            assert page.evaluate("() => window.__noReload === true")  # a route change, no reload
            browser.close()
        client.assert_exactly_once([title])
        assert client.scalar("SELECT state FROM test WHERE title = :t", t=title) == "public"
    finally:
        client.close()
