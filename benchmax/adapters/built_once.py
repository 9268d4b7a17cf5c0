"""One adapter per process, built from the settings it was last asked for.

Workers build a client (the judge, a sandbox) on first use and keep it; tests hand in other
``Settings`` objects, and a different object — not a different value — builds afresh, so a
test never reuses a client built for another.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from benchmax.settings import Settings

Built = TypeVar("Built")


class BuiltOnce(Generic[Built]):
    def __init__(self, build: Callable[[Settings], Built]) -> None:
        self._build = build
        self._last: tuple[Settings, Built] | None = None

    def __call__(self, settings: Settings) -> Built:
        if self._last is None or self._last[0] is not settings:
            self._last = (settings, self._build(settings))
        return self._last[1]
