"""Capping the size of upload requests before and while their bodies are read.

Reflex's ``/_upload`` endpoint has no size limit of its own, so ``UploadSizeLimit`` wraps the
app: a request to it whose ``Content-Length`` is over the cap is answered 413 without reading
a byte, and one without a truthful length is counted as it streams and cut off at the cap.
``LimitedReceive`` is the counting half, shared with the submission API.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from benchmax.api.errors import error_response


class RequestTooLargeError(Exception):
    """The body went past the cap while streaming."""


def declared_length(scope: Scope) -> int | None:
    """The request's Content-Length, or None when absent; a malformed one counts as too big."""
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            return int(value) if value.isdigit() else -1
    return None


def too_large_response(max_bytes: int) -> ASGIApp:
    return error_response(
        413,
        "request_too_large",
        f"The request is larger than {max_bytes:,} bytes. Upload fewer or smaller files.",
    )


class LimitedReceive:
    """A ``receive`` that counts body bytes and raises ``RequestTooLargeError`` past the cap."""

    def __init__(self, receive: Receive, max_bytes: int) -> None:
        self._receive = receive
        self.max_bytes = max_bytes
        self.received = 0
        self.exceeded = False

    async def __call__(self) -> Message:
        message = await self._receive()
        if message["type"] == "http.request":
            self.received += len(message.get("body", b""))
            if self.received > self.max_bytes:
                self.exceeded = True
                raise RequestTooLargeError
        return message


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
        length = declared_length(scope)
        if length is not None and not 0 <= length <= self.max_bytes:
            await too_large_response(self.max_bytes)(scope, receive, send)
            return
        limited = LimitedReceive(receive, self.max_bytes)
        started = False

        async def guarded_send(message: Message) -> None:
            # Once the body is cut off, whatever the app answers (often a 500 from its error
            # middleware) is swallowed and replaced by the 413 below.
            nonlocal started
            if limited.exceeded:
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited, guarded_send)
        except Exception:
            if not limited.exceeded:
                raise
        if limited.exceeded and not started:
            await too_large_response(self.max_bytes)(scope, receive, send)
