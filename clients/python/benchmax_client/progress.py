"""The upload progress line: on a terminal's stderr only, so pipes and logs stay clean."""

from __future__ import annotations

import time
from typing import TextIO

_EVERY_SECONDS = 0.1


def _size(count: int) -> str:
    value = float(count)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    raise AssertionError("unreachable")


class UploadProgress:
    """A callable for ``Client.submit(progress=...)`` that redraws one line, at most ten
    times a second; silent when ``stream`` is not a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.enabled = stream.isatty()
        self._drawn_at = 0.0
        self._drawn = False

    def __call__(self, sent: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        now = time.monotonic()
        if sent < total and now - self._drawn_at < _EVERY_SECONDS:
            return
        self._drawn_at = now
        percent = sent * 100 // total
        self._stream.write(f"\rUploading {_size(sent)} / {_size(total)} ({percent}%)\x1b[K")
        self._stream.flush()
        self._drawn = True

    def finish(self) -> None:
        if self._drawn:
            self._stream.write("\n")
            self._stream.flush()
            self._drawn = False
