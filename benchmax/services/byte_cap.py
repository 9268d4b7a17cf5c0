"""Holding a stream of bytes to a cap while it arrives: the one counter every body and file
goes through.

The API counts request bodies with it (``api/upload_limits.LimitedReceive``) and the
submission service counts each file on its way into storage, so nothing is ever buffered
whole to find out it was too big, and each caller says, with its own ``TooLarge``, what the
person is told.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from benchmax.services.errors import TooLarge


class ByteCap:
    """Counts bytes and raises ``refusal`` the moment they pass ``max_bytes``."""

    def __init__(self, max_bytes: int, refusal: TooLarge) -> None:
        self.max_bytes = max_bytes
        self.refusal = refusal
        self.received = 0
        self.exceeded = False

    def check_declared(self, length: int | None) -> None:
        """Refuse before a byte is read when the declared length (``-1``: malformed) is over."""
        if length is not None and not 0 <= length <= self.max_bytes:
            self.exceeded = True
            raise self.refusal

    def count(self, size: int) -> None:
        self.received += size
        if self.received > self.max_bytes:
            self.exceeded = True
            raise self.refusal

    def chunks(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        """``chunks`` passed through, counted; the refusal is raised before an over-cap chunk
        is handed on."""
        for chunk in chunks:
            self.count(len(chunk))
            yield chunk
