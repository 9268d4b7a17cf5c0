"""Upload bodies over a real socket against a real uvicorn server: the cases a TestClient
cannot produce — a body that trickles or stalls, a client that hangs up mid-body, and
refusals that must come before a single body byte is read."""

from __future__ import annotations

import logging
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from select import select as wait_readable

import pytest
import uvicorn
from sqlalchemy import Engine, func
from sqlmodel import Session, select

from benchmax.api import build_api
from benchmax.context import AppContext
from benchmax.models import AccountStatus, EvidenceFile, Test, TestState, User
from benchmax.services import tokens
from benchmax.settings import Settings
from tests.support.factories import make_test, make_user

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
TIMEOUT = 1.0  # the upload body timeout these tests run with
MIN_RATE = 2000  # bytes per second


@dataclass
class Server:
    port: int
    settings: Settings
    engine: Engine
    objects: Path


@pytest.fixture
def server(settings: Settings, engine: Engine) -> Iterator[Server]:
    quick = settings.model_copy(
        update={
            "upload_body_timeout_seconds": TIMEOUT,
            "upload_min_bytes_per_second": MIN_RATE,
            "upload_rate_limit": 3,
        }
    )
    api = build_api(AppContext.from_settings(quick, engine=engine))
    config = uvicorn.Config(api, host="127.0.0.1", port=0, log_config=None, lifespan="off")
    uv = uvicorn.Server(config)
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not uv.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    port = uv.servers[0].sockets[0].getsockname()[1]
    yield Server(port, quick, engine, quick.resolved_storage_root)
    uv.should_exit = True
    thread.join(timeout=10)


@dataclass
class Reply:
    status: int
    head: str
    body: bytes
    seconds: float


def _read_reply(connection: socket.socket, started: float) -> Reply:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(body) < length:
        chunk = connection.recv(65536)
        if not chunk:
            break
        body += chunk
    return Reply(int(head.split()[1]), head.decode("latin-1"), body, time.monotonic() - started)


def _send(
    server: Server,
    head: str,
    parts: list[bytes] = (),  # type: ignore[assignment]
    pause: float = 0.0,
) -> Reply:
    """Send the request head, then each body part ``pause`` seconds apart, then read."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as connection:
        connection.sendall(head.encode("latin-1"))
        for part in parts:
            if wait_readable([connection], [], [], pause)[0]:
                break  # the server has answered (and stopped reading); stop sending
            try:
                connection.sendall(part)
            except OSError:
                break
        return _read_reply(connection, started)


def _hang_up(server: Server, head: str, part: bytes, *, abrupt: bool) -> None:
    """Send the head and part of the body, then close mid-body: with a reset (``abrupt``,
    as a killed process or a dropped link does) or an orderly close (a cancelled upload)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as connection:
        connection.sendall(head.encode("latin-1") + part)
        time.sleep(0.3)
        if abrupt:
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def _file_head(test_id: str, auth: str, length: int, name: str = "log.txt") -> str:
    return (
        f"POST /api/v1/tests/{test_id}/files HTTP/1.1\r\nHost: localhost\r\n"
        f"Authorization: {auth}\r\nX-Filename: {name}\r\nContent-Length: {length}\r\n"
        "Content-Type: application/octet-stream\r\n\r\n"
    )


def _draft(engine: Engine, user: User | None = None, **values: object) -> tuple[User, str]:
    with Session(engine, expire_on_commit=False) as session:
        owner = user or make_user(session)
        values = {"state": TestState.DRAFT, "published_at": None, **values}
        test = make_test(session, owner, **values)
        session.commit()
        return owner, test.id


def _count(engine: Engine, model: type) -> int:
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(model)).one()


def _quarantined(objects: Path) -> list[Path]:
    root = objects / "quarantine"
    return [path for path in root.rglob("*") if path.is_file()] if root.exists() else []


@pytest.fixture
def auth(session_headers: Callable[[User], dict[str, str]]) -> Callable[[User], str]:
    return lambda user: session_headers(user)["Authorization"]


def _no_tracebacks(caplog: pytest.LogCaptureFixture) -> None:
    loud = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not loud, [r.getMessage() for r in loud]


@BOTH
def test_a_steady_slow_upload_above_the_minimum_rate_succeeds(
    server: Server, auth: Callable[[User], str]
) -> None:
    user, test_id = _draft(server.engine)
    parts = [b"a" * 500] * 8  # 4,000 bytes at about 4,000 bytes/s, past the first second
    reply = _send(server, _file_head(test_id, auth(user), 4000), parts, pause=0.12)
    assert reply.status == 201, reply.body
    assert _count(server.engine, EvidenceFile) == 1


@pytest.mark.parametrize(
    ("parts", "pause"),
    [
        ([b"x"] * 40, 0.25),  # slowloris: one byte every quarter second
        ([b"x" * 100], 0.0),  # a hundred bytes, then silence
        ([b"x" * 1900] * 3 + [b"x"] * 30, 0.3),  # a fast start does not buy an endless tail
    ],
    ids=["trickle", "stall", "fast-then-trickle"],
)
def test_a_body_that_arrives_too_slowly_is_cut_off(
    server: Server,
    auth: Callable[[User], str],
    caplog: pytest.LogCaptureFixture,
    parts: list[bytes],
    pause: float,
) -> None:
    user, test_id = _draft(server.engine)
    reply = _send(server, _file_head(test_id, auth(user), 100_000), parts, pause)
    assert reply.status == 408, reply.body
    assert b'"upload_too_slow"' in reply.body
    assert reply.seconds < 6
    assert _count(server.engine, EvidenceFile) == 0
    assert not _quarantined(server.objects)
    _no_tracebacks(caplog)


@BOTH
@pytest.mark.parametrize("abrupt", [True, False], ids=["reset", "closed"])
def test_a_client_that_hangs_up_mid_file_leaves_nothing_and_no_traceback(
    server: Server, auth: Callable[[User], str], caplog: pytest.LogCaptureFixture, abrupt: bool
) -> None:
    user, test_id = _draft(server.engine)
    _hang_up(server, _file_head(test_id, auth(user), 50_000), b"partial" * 100, abrupt=abrupt)
    time.sleep(0.5)
    assert _count(server.engine, EvidenceFile) == 0
    assert not _quarantined(server.objects)
    # The server is fine afterwards, and the same upload done properly works.
    reply = _send(server, _file_head(test_id, auth(user), 5), [b"hello"])
    assert reply.status == 201
    _no_tracebacks(caplog)


def _api_head(token: str, length: int) -> str:
    return (
        "POST /api/v1/tests HTTP/1.1\r\nHost: localhost\r\n"
        f"Authorization: Bearer {token}\r\nContent-Length: {length}\r\n"
        "Content-Type: multipart/form-data; boundary=b0undary\r\n\r\n"
    )


_PARTIAL_FORM = b'--b0undary\r\nContent-Disposition: form-data; name="prompt"\r\n\r\nhalf a pro'


def _api_token(engine: Engine) -> str:
    with Session(engine, expire_on_commit=False) as session:
        user = make_user(session)
        _row, plaintext = tokens.create_token(session, user, "ci")
        session.commit()
    return plaintext


@BOTH
def test_the_submission_api_is_quiet_about_hang_ups_and_cuts_off_slow_bodies(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    token = _api_token(server.engine)
    _hang_up(server, _api_head(token, 20_000), _PARTIAL_FORM, abrupt=True)
    _hang_up(server, _api_head(token, 20_000), _PARTIAL_FORM, abrupt=False)
    time.sleep(0.5)
    slow = _send(server, _api_head(token, 20_000), [_PARTIAL_FORM] + [b"x"] * 30, pause=0.25)
    assert slow.status == 408, slow.body
    assert b'"upload_too_slow"' in slow.body
    assert _count(server.engine, Test) == 0
    assert not _quarantined(server.objects)
    _no_tracebacks(caplog)


# Refusals that need no body: each must answer at once though the client has sent only
# the head of a large upload — the server did not wait for (or read) the body.
def _stranger(engine: Engine) -> tuple[User, str]:
    _owner, test_id = _draft(engine)
    with Session(engine, expire_on_commit=False) as session:
        stranger = make_user(session)
        session.commit()
    return stranger, test_id


def _missing(engine: Engine) -> tuple[User, str]:
    with Session(engine, expire_on_commit=False) as session:
        user = make_user(session)
        session.commit()
    return user, "zzzzzzzzzzzzzzzz"


def _published(engine: Engine) -> tuple[User, str]:
    return _draft(engine, state=TestState.PUBLIC)


def _suspended(engine: Engine) -> tuple[User, str]:
    user, test_id = _draft(engine)
    with Session(engine) as session:
        row = session.get(User, user.id)
        assert row is not None
        row.status = AccountStatus.SUSPENDED
        session.add(row)
        session.commit()
    return user, test_id


@BOTH
@pytest.mark.parametrize(
    ("case", "status", "code"),
    [
        (_stranger, 404, "not_found"),
        (_missing, 404, "not_found"),
        (_published, 409, "not_editable"),
        (_suspended, 403, "account_suspended"),
    ],
    ids=["someone-elses", "missing", "published", "suspended"],
)
def test_the_test_is_checked_before_the_body_is_read(
    server: Server,
    auth: Callable[[User], str],
    case: Callable[[Engine], tuple[User, str]],
    status: int,
    code: str,
) -> None:
    user, test_id = case(server.engine)
    reply = _send(server, _file_head(test_id, auth(user), 10_000_000))
    assert reply.status == status, reply.body
    assert f'"{code}"'.encode() in reply.body
    assert reply.seconds < TIMEOUT  # answered without waiting for the body
    assert _count(server.engine, EvidenceFile) == 0


@BOTH
def test_uploads_are_rate_limited_per_account_before_the_body(
    server: Server, auth: Callable[[User], str]
) -> None:
    user, first = _draft(server.engine)
    _same, second = _draft(server.engine, user)
    for test_id in (first, first, second):  # the limit spans all the account's drafts
        assert _send(server, _file_head(test_id, auth(user), 2), [b"ok"]).status == 201
    limited = _send(server, _file_head(second, auth(user), 10_000_000))
    assert limited.status == 429, limited.body
    assert b'"rate_limited"' in limited.body
    assert "retry-after:" in limited.head.lower()
    assert limited.seconds < TIMEOUT
    other, theirs = _draft(server.engine)
    assert _send(server, _file_head(theirs, auth(other), 2), [b"ok"]).status == 201
    assert _count(server.engine, EvidenceFile) == 4


def test_an_oversized_length_is_refused_before_the_body(
    server: Server, auth: Callable[[User], str]
) -> None:
    user, test_id = _draft(server.engine)
    huge = _send(server, _file_head(test_id, auth(user), 10**12))
    assert huge.status == 413
    assert b'"file_too_large"' in huge.body
    assert huge.seconds < TIMEOUT
