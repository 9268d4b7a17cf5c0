"""The stack's round-robin proxy: a dead replica costs retries, never a refused client."""

from __future__ import annotations

import asyncio
import socket

import pytest

from benchmax.stack.proxy import RoundRobinProxy


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
