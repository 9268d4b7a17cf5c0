"""Cross-origin reads: only the app's own origin may read its API with credentials or open
its event socket.
The hostile page is served on another port of ``localhost``: another origin but the same
site, so the browser does send the signed-in moderator's cookie — only CORS stands between
that page and the moderator's queue. The same requests from the app's own pages must work.
"""

from __future__ import annotations

import http.server
import re
import secrets
import socket
import threading
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Page
from sqlmodel import Session

from benchmax.models import Role
from benchmax.services.accounts import grant_role
from tests.e2e.conftest import BLOCKED_LOAD, LiveApp, allow_console_error, signed_in_page
from tests.support.factories import make_user

FOREIGN_ORIGINS = ["http://evil.example", "null", "http://localhost:1", "https://localhost:3000"]
# What a page can learn with fetch(..., {credentials: "include"}): the body, or the error.
READ_WITH_COOKIE = """url => fetch(url, {credentials: "include"})
    .then(r => r.text().then(body => ({ok: true, status: r.status, body})))
    .catch(e => ({ok: false, error: String(e)}))"""
# Whether a websocket to the event endpoint opens (its cookie would make it the user's).
OPENS_SOCKET = """url => new Promise(resolve => {
    const socket = new WebSocket(url);
    socket.onopen = () => { socket.close(); resolve("open"); };
    socket.onerror = () => resolve("error");
    socket.onclose = () => resolve("closed");
    setTimeout(() => resolve("timeout"), 10000);
})"""


class _Hostile(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<!doctype html><title>cat pictures</title><p>nothing to see</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture(scope="module")
def hostile_origin() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hostile)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://localhost:{server.server_address[1]}"
    server.shutdown()


def _moderator_page(app: LiveApp, browser: Browser) -> Page:
    handle = f"mod{secrets.token_hex(3)}"
    with Session(app.engine) as session:
        make_user(session, handle=handle, auth_subject=f"local|{handle}")
        session.commit()
        grant_role(session, handle, Role.MODERATOR)
        session.commit()
    return signed_in_page(browser, app, handle)


def _socket_url(app: LiveApp) -> str:
    return app.url.replace("http://", "ws://") + "/_event/?EIO=4&transport=websocket"


def test_a_page_on_another_port_cannot_read_a_moderators_queue(
    live_app: LiveApp, browser: Browser, hostile_origin: str
) -> None:
    page = _moderator_page(live_app, browser)
    queue_url = f"{live_app.url}/api/v1/moderation/queues"
    # The control: from the app's own page the cookie does grant the moderator's queue.
    own = page.evaluate(READ_WITH_COOKIE, queue_url)
    assert own["ok"], own
    assert own["status"] == 200, own
    assert page.evaluate(OPENS_SOCKET, _socket_url(live_app)) == "open"

    page.goto(hostile_origin)
    # The foreign page's refused read and socket are what this test provokes; Chromium logs
    # each refusal, and only those pass.
    refused_read = (
        rf"Access to fetch at '{re.escape(queue_url)}' from origin '{re.escape(hostile_origin)}'"
    )
    allow_console_error(page, rf"^console error: {refused_read} has been blocked by CORS policy")
    allow_console_error(page, rf"{BLOCKED_LOAD}\({re.escape(queue_url)}\)$")
    refused_socket = r"^console error: WebSocket connection to '[^']*/_event/[^']*' failed"
    allow_console_error(page, refused_socket)
    stolen = page.evaluate(READ_WITH_COOKIE, queue_url)
    assert not stolen["ok"], stolen
    assert "Failed to fetch" in stolen["error"]
    assert page.evaluate(OPENS_SOCKET, _socket_url(live_app)) != "open"
    page.context.close()


@pytest.mark.parametrize("origin", FOREIGN_ORIGINS)
@pytest.mark.parametrize(
    "path", ["/api/v1/tests", "/healthz", "/ping", "/api/v1/moderation/queues"]
)
def test_foreign_origins_get_no_cors_grant(live_app: LiveApp, origin: str, path: str) -> None:
    preflight = httpx.options(
        live_app.url + path,
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "authorization",
        },
    )
    simple = httpx.get(live_app.url + path, headers={"Origin": origin})

    # Anonymous reads are open data: at most "*", which a browser never pairs with a cookie.
    # The foreign origin itself is never named and credentials are never allowed, so a page
    # elsewhere reads nothing a signed-in visitor could see that a stranger could not.
    for response in (preflight, simple):
        granted = response.headers.get("access-control-allow-origin")
        assert granted in (None, "*"), (path, response.headers)
        assert "access-control-allow-credentials" not in response.headers, (path, response.headers)


@pytest.mark.parametrize("path", ["/api/v1/tests", "/healthz", "/ping"])
def test_the_apps_own_origin_is_granted(live_app: LiveApp, path: str) -> None:
    preflight = httpx.options(
        live_app.url + path,
        headers={"Origin": live_app.url, "Access-Control-Request-Method": "POST"},
    )
    simple = httpx.get(live_app.url + path, headers={"Origin": live_app.url})

    assert preflight.status_code in (200, 204)
    for response in (preflight, simple):
        assert response.headers["access-control-allow-origin"] == live_app.url
        assert response.headers["access-control-allow-credentials"] == "true"


def _handshake_status(app: LiveApp, origin: str) -> bytes:
    """The status line the event endpoint answers a websocket handshake from ``origin``."""
    port = int(app.url.rsplit(":", 1)[1])
    request = (
        "GET /_event/?EIO=4&transport=websocket HTTP/1.1\r\n"
        f"Host: localhost:{port}\r\nOrigin: {origin}\r\n"
        "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    )
    with socket.create_connection(("localhost", port), timeout=10) as connection:
        connection.sendall(request.encode())
        return connection.recv(4096).split(b"\r\n", 1)[0]


@pytest.mark.parametrize("origin", FOREIGN_ORIGINS)
def test_the_event_socket_refuses_a_foreign_origin(live_app: LiveApp, origin: str) -> None:
    assert b" 101 " not in _handshake_status(live_app, origin)
    assert b" 101 " in _handshake_status(live_app, live_app.url)
