"""The stack's round-robin proxy: a dead replica costs retries, never a refused client."""

from __future__ import annotations

import asyncio
import socket

import pytest

from benchmax.stack.proxy import RoundRobinProxy, serve


def _closed_port() -> int:
    """A loopback port with nothing listening (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _echo_server() -> tuple[asyncio.Server, int]:
    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"live:" + await reader.readline())
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


@pytest.mark.asyncio
async def test_concurrent_connections_all_reach_the_live_replica_when_one_is_dead() -> None:
    """Each connection tries every replica once from its own place in the ring; drawn from
    the shared cycle, two connections at once could each try the dead one twice."""
    server, live = await _echo_server()
    dead = _closed_port()
    proxy = RoundRobinProxy([("127.0.0.1", dead), ("127.0.0.1", live)])
    front = await asyncio.start_server(proxy.handle, "127.0.0.1", 0)
    port = front.sockets[0].getsockname()[1]

    async def ask(n: int) -> bytes:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"{n}\n".encode())
        await writer.drain()
        answer = await reader.read()
        writer.close()
        return answer

    async with server, front:
        answers = await asyncio.gather(*(ask(n) for n in range(40)))

    assert answers == [f"live:{n}\n".encode() for n in range(40)]


@pytest.mark.asyncio
async def test_with_every_replica_dead_the_client_gets_a_503() -> None:
    proxy = RoundRobinProxy([("127.0.0.1", _closed_port()), ("127.0.0.1", _closed_port())])
    front = await asyncio.start_server(proxy.handle, "127.0.0.1", 0)
    port = front.sockets[0].getsockname()[1]
    async with front:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        answer = await reader.read()
        writer.close()

    assert answer.startswith(b"HTTP/1.1 503 Service Unavailable\r\n")


@pytest.mark.asyncio
async def test_on_stop_it_refuses_new_connections_and_lets_open_ones_finish_within_the_grace() -> (
    None
):
    release = asyncio.Event()

    async def slow(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        line = await reader.readline()
        await release.wait()
        writer.write(b"done:" + line)
        await writer.drain()
        writer.close()

    backend = await asyncio.start_server(slow, "127.0.0.1", 0)
    port = _closed_port()
    stop = asyncio.Event()
    serving = asyncio.create_task(
        serve("127.0.0.1", port, [backend.sockets[0].getsockname()[:2]], 5.0, stop)
    )
    await asyncio.sleep(0.2)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"upload\n")
    await writer.drain()
    await asyncio.sleep(0.2)

    stop.set()
    await asyncio.sleep(0.2)
    with pytest.raises(ConnectionRefusedError):
        await asyncio.open_connection("127.0.0.1", port)
    assert not serving.done()  # still carrying the open connection
    release.set()
    assert await reader.read() == b"done:upload\n"
    writer.close()
    await asyncio.wait_for(serving, 5)
    backend.close()


@pytest.mark.asyncio
async def test_a_connection_that_never_ends_is_cut_after_the_grace() -> None:
    async def forever(reader: asyncio.StreamReader, _writer: asyncio.StreamWriter) -> None:
        await reader.read()

    backend = await asyncio.start_server(forever, "127.0.0.1", 0)
    port = _closed_port()
    stop = asyncio.Event()
    serving = asyncio.create_task(
        serve("127.0.0.1", port, [backend.sockets[0].getsockname()[:2]], 0.5, stop)
    )
    await asyncio.sleep(0.2)
    _reader, writer = await asyncio.open_connection("127.0.0.1", port)
    await asyncio.sleep(0.1)
    started = asyncio.get_running_loop().time()
    stop.set()
    await asyncio.wait_for(serving, 5)
    assert 0.5 <= asyncio.get_running_loop().time() - started < 2
    writer.close()
    backend.close()
