"""The application context: every collaborator a process needs, built once at start-up.

``AppContext.from_settings`` builds the engine, object storage, sign-in verifier and the
``JobContext`` the job handlers use (which adds the queue slot, the judge client and the
sandbox), from one ``Settings``. Whoever starts a process builds it and hands it on:
``build_api(ctx)`` closes over it, the Reflex app builds it when ``benchmax/benchmax.py`` is
imported, a Taskiq worker builds it in its start-up hook, the CLI builds one per command.
Tests build one for their own database, settings and storage; none patches a collaborator.

Services never receive the context: they keep taking the session, storage, settings and
clients they need as arguments, so they stay usable from any of those callers.

Reflex states are the exception that needs a process-wide accessor: Reflex instantiates them
itself and a state cannot be given constructor arguments. So the app sets the one context
with ``use_app_context`` when it starts, and states read it with ``app_context()``. Nothing
else reads the accessor.

The queue dispatcher owns an event-loop thread, so it must be started inside the serving
process (after any fork), not when the context is built: ``queue`` is a slot built with the
context and a start-up hook attaches the running dispatcher to it (``benchmax.lifespan``, the
worker's start-up event). A session the context opens sends the jobs enqueued in it through
that slot once it commits.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy import Engine
from sqlmodel import Session

from benchmax.adapters.auth import SessionVerifier, build_verifier
from benchmax.adapters.queue import DispatcherSlot
from benchmax.adapters.storage import ObjectStorage
from benchmax.services.jobs import JobContext
from benchmax.settings import Settings


@dataclass(frozen=True)
class AppContext:
    """Settings and the collaborators built from them, shared by one process's callers."""

    settings: Settings
    verifier: SessionVerifier
    jobs: JobContext

    # The engine, storage and queue are the job context's: one owner, so the API, the states
    # and the jobs of a process can never hold two different ones.
    @property
    def engine(self) -> Engine:
        return self.jobs.engine

    @property
    def storage(self) -> ObjectStorage:
        return self.jobs.storage

    @property
    def queue(self) -> DispatcherSlot:
        return self.jobs.queue

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
        return cls(
            settings=settings,
            verifier=verifier if verifier is not None else build_verifier(settings),
            jobs=JobContext.from_settings(settings, engine=engine, storage=storage),
        )

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session on this context's database that commits on success (and then sends the
        jobs it enqueued through ``queue``)."""
        with self.jobs.session() as session:
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
