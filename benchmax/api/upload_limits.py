"""Capping the size and the duration of upload requests before and while their bodies are read.

Reflex's ``/_upload`` endpoint has no size limit of its own, so ``UploadSizeLimit`` wraps the
app: a request to it whose ``Content-Length`` is over the cap is answered 413 without reading
a byte, and one without a truthful length is counted as it streams and cut off at the cap.
``LimitedReceive`` is the counting half, shared with the submission, draft-file and JSON
APIs; it counts with ``services.byte_cap.ByteCap`` (as the submission service counts each
file into storage) and raises the caller's ``TooLarge``, which the API answers as any refusal.

Given a timeout it also cuts off a body that arrives too slowly, so a client trickling bytes
(slowloris) cannot hold a connection, a worker's spool file and a database-checked slot for
ever. The rule: no wait for the next chunk may exceed ``timeout`` seconds, and the whole body
must keep an average of ``min_bytes_per_second`` after a first ``timeout`` seconds of grace —
each byte received buys ``1 / min_bytes_per_second`` seconds more. A slow but steady link of
that rate always finishes, whatever the file's size; one byte every few seconds does not.
"""

from __future__ import annotations

import asyncio
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from benchmax.api.errors import service_error_response
from benchmax.services.byte_cap import ByteCap
from benchmax.services.errors import Invalid, TooLarge, TooSlow
from benchmax.settings import Settings


def too_slow(field: str | None = None) -> TooSlow:
    return TooSlow(
        "upload_too_slow",
        "The upload arrived too slowly and was stopped. Check the connection and try again.",
        field,
    )


def interrupted(field: str | None = None) -> Invalid:
    """For a client that went away mid-body: nobody reads it, but the log stays quiet."""
    return Invalid("upload_interrupted", "The upload was interrupted.", field)


def declared_length(scope: Scope) -> int | None:
    """The request's Content-Length, or None when absent; a malformed one counts as too big."""
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            return int(value) if value.isdigit() else -1
    return None


def request_too_large(max_bytes: int) -> TooLarge:
    return TooLarge(
        "request_too_large",
        f"The request is larger than {max_bytes:,} bytes. Upload fewer or smaller files.",
    )


class LimitedReceive:
    """A ``receive`` that counts body bytes against ``cap`` (raising its ``TooLarge``), and
    raises ``slow_refusal`` when given a ``timeout`` the body does not keep to."""

    def __init__(
        self,
        receive: Receive,
        cap: ByteCap,
        *,
        timeout: float | None = None,
        min_bytes_per_second: int = 1,
        slow_refusal: TooSlow | None = None,
    ) -> None:
        self._receive = receive
        self.cap = cap
        self.timeout = timeout
        self.min_bytes_per_second = min_bytes_per_second
        self.slow_refusal = slow_refusal or too_slow()
        self._started: float | None = None

    def _budget(self, timeout: float) -> float:
        """Seconds the next chunk may take: the idle limit, or less near the rate deadline."""
        now = time.monotonic()
        if self._started is None:
            self._started = now
        deadline = self._started + timeout + self.cap.received / self.min_bytes_per_second
        return min(timeout, deadline - now)

    async def _timed_receive(self) -> Message:
        if self.timeout is None:
            return await self._receive()
        budget = self._budget(self.timeout)
        if budget <= 0:
            raise self.slow_refusal
        try:
            return await asyncio.wait_for(self._receive(), budget)
        except TimeoutError:
            raise self.slow_refusal from None

    async def __call__(self) -> Message:
        message = await self._timed_receive()
        if message["type"] == "http.request":
            self.cap.count(len(message.get("body", b"")))
        return message


def upload_receive(
    receive: Receive, cap: ByteCap, settings: Settings, field: str | None = None
) -> LimitedReceive:
    """The ``receive`` every upload body is read through: capped and held to the timeout."""
    return LimitedReceive(
        receive,
        cap,
        timeout=settings.upload_body_timeout_seconds,
        min_bytes_per_second=settings.upload_min_bytes_per_second,
        slow_refusal=too_slow(field),
    )


class UploadSizeLimit:
    """Pure ASGI middleware: requests under ``path_prefix`` may carry at most ``max_bytes``."""

    def __init__(self, app: ASGIApp, max_bytes: int, path_prefix: str = "/_upload") -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.path_prefix = path_prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(self.path_prefix):
            await self.app(scope, receive, send)
            return
        cap = ByteCap(self.max_bytes, request_too_large(self.max_bytes))
        try:
            cap.check_declared(declared_length(scope))
        except TooLarge as refusal:
            await service_error_response(refusal)(scope, receive, send)
            return
        limited = LimitedReceive(receive, cap)
        started = False

        async def guarded_send(message: Message) -> None:
            # Once the body is cut off, whatever the app answers (often a 500 from its error
            # middleware) is swallowed and replaced by the 413 below.
            nonlocal started
            if cap.exceeded:
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited, guarded_send)
        except Exception:
            if not cap.exceeded:
                raise
        if cap.exceeded and not started:
            await service_error_response(cap.refusal)(scope, receive, send)
