"""The contributor client against answers the real API does not give on demand — a gateway's
502, ``Retry-After: 0`` forever, a non-JSON page — from a scripted HTTP server on loopback."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from benchmax_client import ApiError, Client, RateLimited, Unreachable

Answer = tuple[int, dict[str, str], bytes]
PAGE = json.dumps({"items": [], "next_cursor": None}).encode()


class Scripted:
    """Answers requests in order, one scripted answer each; records what was asked."""

    def __init__(self) -> None:
        self.answers: list[Answer] = []
        self.paths: list[str] = []
        script = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                script.paths.append(self.path)
                status, headers, body = script.answers.pop(0)
                self.send_response(status)
                for name, value in {"Content-Length": str(len(body)), **headers}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture
def scripted() -> Iterator[Scripted]:
    server = Scripted()
    thread = threading.Thread(target=server.server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.server.shutdown()
    server.server.server_close()


def _error(status: int, code: str, **headers: str) -> Answer:
    body = {"error": {"code": code, "message": f"{code} says so.", "field": None}}
    return status, {"Content-Type": "application/json", **headers}, json.dumps(body).encode()


def test_a_gateway_error_is_retried_then_reported(scripted: Scripted) -> None:
    slept: list[float] = []
    gateway: Answer = (502, {}, b"<html>Bad gateway</html>")
    scripted.answers = [gateway, gateway, (200, {}, PAGE)]
    with Client(scripted.url, sleep=slept.append) as client:
        assert client.search()["items"] == []
    assert len(slept) == 2
    scripted.answers = [gateway] * 3
    with Client(scripted.url, sleep=slept.append) as client, pytest.raises(ApiError) as failed:
        client.search()
    assert failed.value.status == 502
    assert failed.value.message == "The server answered 502 Bad Gateway."


def test_retry_after_zero_forever_ends_within_max_wait(scripted: Scripted) -> None:
    slept: list[float] = []
    scripted.answers = [_error(429, "rate_limited", **{"Retry-After": "0"})] * 10
    with (
        Client(scripted.url, max_wait=3, sleep=slept.append) as client,
        pytest.raises(RateLimited) as refused,
    ):
        client.search()
    assert slept == [1.0, 1.0, 1.0]
    assert refused.value.message == "rate_limited says so."


def test_a_503_with_retry_after_is_waited_out(scripted: Scripted) -> None:
    slept: list[float] = []
    scripted.answers = [_error(503, "maintenance", **{"Retry-After": "2"}), (200, {}, PAGE)]
    with Client(scripted.url, sleep=slept.append) as client:
        client.search(model="GPT-5")
    assert slept == [2.0]
    assert scripted.paths == ["/api/v1/tests?model=GPT-5"] * 2


def test_a_page_that_is_not_json_is_not_mistaken_for_an_answer(scripted: Scripted) -> None:
    scripted.answers = [(200, {"Content-Type": "text/html"}, b"<html>login</html>")]
    with Client(scripted.url) as client, pytest.raises(Unreachable, match="BenchMax server"):
        client.search()
