"""The application context: every collaborator a process needs, built once at start-up.

``AppContext.from_settings`` builds the engine, object storage, sign-in verifier and the
``JobContext`` the job handlers use, from one ``Settings``. Whoever starts a process builds it
and hands it on: ``build_api(ctx)`` closes over it, the Reflex app builds it when
``benchmax/benchmax.py`` is imported, a Taskiq worker builds it in its start-up hook, the CLI
builds one per command. Tests build one for their own database, settings and storage.

Services never receive the context: they keep taking the session, storage and settings they
need as arguments, so they stay usable from any of those callers.

Reflex states are the exception that needs a process-wide accessor: Reflex instantiates them
itself and a state cannot be given constructor arguments. So the app sets the one context
with ``use_app_context`` when it starts, and states read it with ``app_context()``. Nothing
else reads the accessor.

The queue dispatcher owns an event-loop thread, so it must be started inside the serving
process (after any fork), not when the context is built: ``queue`` is a slot built with the
context and a start-up hook attaches the running dispatcher to it (``benchmax.lifespan``, the
worker's start-up event).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from sqlalchemy import Engine
from sqlmodel import Session

from benchmax.adapters.auth import SessionVerifier, build_verifier
from benchmax.adapters.queue import JobDispatcher
from benchmax.adapters.storage import ObjectStorage, build_storage
from benchmax.db import get_engine, session_scope
from benchmax.services.jobs import JobContext
from benchmax.settings import Settings

logger = logging.getLogger(__name__)


class DispatcherSlot:
    """The context's job dispatcher: a stable object that forwards to the one attached.

    Until a start-up hook attaches a dispatcher (or after it detaches it) sends are dropped
    with a warning; the committed job rows wait for the sweeper, so nothing is lost.
    """

    def __init__(self) -> None:
        self._dispatcher: JobDispatcher | None = None

    def attach(self, dispatcher: JobDispatcher | None) -> JobDispatcher | None:
        """Forward to ``dispatcher`` from now on; returns the one attached before."""
        previous, self._dispatcher = self._dispatcher, dispatcher
        return previous

    @property
    def attached(self) -> JobDispatcher | None:
        return self._dispatcher

    def send(self, job_ids: Sequence[int]) -> None:
        if self._dispatcher is None:
            logger.warning("no job dispatcher started; jobs %s wait for the sweeper", job_ids)
            return
        self._dispatcher.send(job_ids)


@dataclass(frozen=True)
class AppContext:
    """Settings and the collaborators built from them, shared by one process's callers."""

    settings: Settings
    engine: Engine
    storage: ObjectStorage
    verifier: SessionVerifier
    jobs: JobContext
    queue: DispatcherSlot = field(default_factory=DispatcherSlot)

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        engine: Engine | None = None,
        storage: ObjectStorage | None = None,
        verifier: SessionVerifier | None = None,
    ) -> AppContext:
        """Build every collaborator the settings choose; tests may pass their own instances."""
        engine = engine if engine is not None else get_engine(settings.resolved_database_url)
        storage = storage if storage is not None else build_storage(settings)
        jobs = JobContext(settings=settings, engine=engine)
        jobs.storage = storage  # the job handlers share this process's one storage
        return cls(
            settings=settings,
            engine=engine,
            storage=storage,
            verifier=verifier if verifier is not None else build_verifier(settings),
            jobs=jobs,
        )

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session on this context's database that commits on success."""
        with session_scope(self.engine) as session:
            yield session


_app: AppContext | None = None


def use_app_context(ctx: AppContext | None) -> AppContext | None:
    """Make ``ctx`` the one Reflex states read; returns the previous one (tests restore it)."""
    global _app
    previous, _app = _app, ctx
    return previous


def app_context() -> AppContext:
    """The context the running app set at start-up (for Reflex states, which take no
    constructor arguments)."""
    if _app is None:
        raise RuntimeError("no application context: the app sets one with use_app_context")
    return _app
