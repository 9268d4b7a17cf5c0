"""One port in front of several web replicas: a round-robin TCP (layer 4) proxy.

Production puts a load balancer in front of the replicas; this stands in for it on one
machine. It forwards whole connections, not requests, so HTTP keep-alive, uploads and
Reflex's event websocket pass through untouched (no HTTP parsing, no buffering). A
connection stays on the replica it was given, as behind any L4 balancer; that is enough
because the replicas share state through the Redis state manager, not through affinity.
A replica that refuses the connection (dead, restarting) is skipped and the next one tried,
so killing one replica costs only the connections it held.

On SIGTERM or SIGINT it stops accepting at once and gives the connections it carries the
grace period (``--grace``) to finish — an upload half sent, a page being served — then exits,
cutting whatever is still open (a browser's websocket reconnects through the next proxy).

Run: ``python -m benchmax.stack.proxy --port 4700 --backend 127.0.0.1:4711 --backend ...``
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import logging
import signal
from collections.abc import Sequence
from contextlib import suppress

logger = logging.getLogger("benchmax.stack.proxy")

_CHUNK = 64 * 1024
_CONNECT_TIMEOUT_SECONDS = 2.0


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(_CHUNK):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with suppress(ConnectionError, OSError, RuntimeError):
            if writer.can_write_eof():
                writer.write_eof()


class RoundRobinProxy:
    """Hands each accepted connection to the next replica that accepts it."""

    def __init__(self, backends: Sequence[tuple[str, int]]) -> None:
        self.backends = list(backends)
        self._next = itertools.cycle(range(len(self.backends)))
        self._open = 0
        self._idle = asyncio.Event()
        self._idle.set()

    async def drained(self, timeout: float) -> bool:
        """Whether every connection ended within ``timeout`` seconds."""
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        # Each connection tries every replica once, from its own place in the ring: retries
        # drawn from the shared cycle interleave with other connections', so one of them could
        # try the dead replica twice, never the live one, and answer 503.
        start = next(self._next)
        for offset in range(len(self.backends)):
            host, port = self.backends[(start + offset) % len(self.backends)]
            try:
                return await asyncio.wait_for(
                    asyncio.open_connection(host, port), _CONNECT_TIMEOUT_SECONDS
                )
            except (OSError, TimeoutError):
                logger.warning("replica %s:%s refused a connection; trying the next", host, port)
        return None

    async def handle(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        self._open += 1
        self._idle.clear()
        try:
            await self._carry(client_r, client_w)
        finally:
            self._open -= 1
            if not self._open:
                self._idle.set()

    async def _carry(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        upstream = await self._connect()
        if upstream is None:
            client_w.write(
                b"HTTP/1.1 503 Service Unavailable\r\n"
                b"content-length: 0\r\nconnection: close\r\n\r\n"
            )
            with suppress(ConnectionError, OSError):
                await client_w.drain()
            client_w.close()
            return
        up_r, up_w = upstream
        try:
            await asyncio.gather(_pipe(client_r, up_w), _pipe(up_r, client_w))
        finally:
            for writer in (up_w, client_w):
                writer.close()
                with suppress(ConnectionError, OSError):
                    await writer.wait_closed()


async def serve(
    host: str,
    port: int,
    backends: Sequence[tuple[str, int]],
    grace: float,
    stop: asyncio.Event | None = None,
) -> None:
    """Proxy until ``stop`` is set (by SIGTERM or SIGINT when not given), then drain."""
    proxy = RoundRobinProxy(backends)
    server = await asyncio.start_server(proxy.handle, host, port, backlog=1024)
    if stop is None:
        stop = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    await stop.wait()
    server.close()
    if not await proxy.drained(grace):
        logger.warning("connections still open after %.0fs; closing them", grace)


def _backend(value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    return host or "127.0.0.1", int(port)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="benchmax.stack.proxy", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--backend", type=_backend, action="append", required=True)
    parser.add_argument("--grace", type=float, default=20.0, help="seconds to drain on stop")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    asyncio.run(serve(args.host, args.port, args.backend, args.grace))


if __name__ == "__main__":
    main()
