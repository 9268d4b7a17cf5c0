"""The heartbeat of a process that runs jobs, on a thread of its own.

A thread, not a task on the process's event loop: a busy loop or a long handler must not make
a live worker look dead, and the write is plain synchronous database code. A failed write is
logged (its error class only) and tried again at the next beat; missing a few is what the
``worker_dead_after_seconds`` margin is for.
"""

from __future__ import annotations

import logging
import threading

from benchmax.services.jobs import JobContext
from benchmax.services.jobs.liveness import beat, retire

logger = logging.getLogger(__name__)


class Heartbeat:
    """Writes ``worker_id``'s heartbeat every ``worker_heartbeat_seconds`` until stopped."""

    def __init__(self, jobs: JobContext, worker_id: str) -> None:
        self._jobs = jobs
        self.worker_id = worker_id
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="benchmax-heartbeat", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        every = self._jobs.settings.worker_heartbeat_seconds
        while True:
            try:
                with self._jobs.session() as session:
                    beat(session, self.worker_id)
            except Exception as exc:
                logger.warning("heartbeat not written (%s); trying again", type(exc).__name__)
            if self._stop.wait(every):
                return

    def stop(self) -> None:
        """Stop beating and say so, so the next sweep releases whatever this process left."""
        self._stop.set()
        self._thread.join(timeout=5)
        try:
            with self._jobs.session() as session:
                retire(session, self.worker_id)
        except Exception as exc:
            logger.warning("could not retire heartbeat (%s)", type(exc).__name__)
