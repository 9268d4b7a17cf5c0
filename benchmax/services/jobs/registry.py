"""Job handlers and what they are given to work with.

A handler is ``fn(ctx: JobContext, subject_id: str) -> None`` registered for one job kind:

    @job_handler("safety_scan")
    def scan(ctx: JobContext, subject_id: str) -> None: ...

Handlers MUST be idempotent. A job can run more than once: a worker may be killed after the
handler's effect committed but before the job was marked done, and a handler that outlives
its lease (``job_lease_seconds``) can be started again elsewhere. So a handler looks at the
subject's current state first and does only what is still missing, and finishes well within
the lease. It opens its own sessions (``ctx.session()``) and commits its own work; returning
normally marks the job done, raising schedules a retry. Everything else it uses comes from
the context too (``ctx.storage``, ``ctx.judge``, ``ctx.sandbox``, ``ctx.settings``), never from
a module of its own, so a test hands a handler other collaborators by building a context.

A kind may also register ``on_dead``: called (in its own transaction, after the job row is
``dead``) so the subject can show that its work has failed for good, e.g. a Test reading
"Processing failed". It must be idempotent too; the runner and the sweeper both call it.

A raised exception is recorded by its class name only, because exception messages can quote
submission content. A handler that wants a more useful code raises ``JobError("code")``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy import Engine
from sqlmodel import Session

from benchmax.adapters.judge import JudgePort, build_judge
from benchmax.adapters.queue import DispatcherSlot
from benchmax.adapters.sandbox import SandboxPort, build_sandbox
from benchmax.adapters.storage import ObjectStorage, build_storage
from benchmax.db import make_engine, session_scope
from benchmax.settings import Settings

logger = logging.getLogger(__name__)

MAX_ERROR_CODE_LENGTH = 64
CONTEXT_KEY = "benchmax.jobs.context"
"""Where a session opened by a ``JobContext`` keeps it (``Session.info``), for ``enqueue``."""


class JobError(Exception):
    """A failure with a content-free code to record on the job row (≤ 64 characters)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code[:MAX_ERROR_CODE_LENGTH]


def error_code(exc: BaseException) -> str:
    """What a job row records about a failure: never the message, which may carry content."""
    if isinstance(exc, JobError):
        return exc.code
    return type(exc).__name__[:MAX_ERROR_CODE_LENGTH]


@dataclass(frozen=True)
class JobContext:
    """Everything a handler may use, built once by the process that runs the jobs.

    ``AppContext.from_settings`` builds it with the process's engine, storage and queue slot;
    tests build one with ``from_settings`` and hand in what they want instead. The judge client
    and the sandbox are cheap to build and None while the settings turn them off.
    """

    settings: Settings
    engine: Engine
    storage: ObjectStorage
    queue: DispatcherSlot
    judge: JudgePort | None
    sandbox: SandboxPort | None

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        engine: Engine | None = None,
        storage: ObjectStorage | None = None,
        queue: DispatcherSlot | None = None,
    ) -> JobContext:
        """Build every collaborator the settings choose, except those passed in."""
        return cls(
            settings=settings,
            engine=engine if engine is not None else make_engine(settings.resolved_database_url),
            storage=storage if storage is not None else build_storage(settings),
            queue=queue if queue is not None else DispatcherSlot(),
            judge=build_judge(settings),
            sandbox=build_sandbox(settings),
        )

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session that commits on success and rolls back on error; jobs it enqueues are
        sent through this context's queue once it commits."""
        with session_scope(self.engine) as session:
            session.info[CONTEXT_KEY] = self
            yield session


Handler = Callable[[JobContext, str], None]
DeadHook = Callable[[JobContext, str], None]

_handlers: dict[str, Handler] = {}
_dead_hooks: dict[str, DeadHook] = {}


def job_handler(kind: str, *, on_dead: DeadHook | None = None) -> Callable[[Handler], Handler]:
    """Register ``fn`` as the handler for ``kind``; one handler per kind per process."""

    def register(fn: Handler) -> Handler:
        existing = _handlers.get(kind)
        # Compared by name so re-importing the defining module is not a conflict.
        if existing is not None and _name(existing) != _name(fn):
            raise ValueError(f"a handler for job kind {kind!r} is already registered")
        _handlers[kind] = fn
        if on_dead is not None:
            _dead_hooks[kind] = on_dead
        return fn

    return register


def run_dead_hook(ctx: JobContext, job_id: int, kind: str, subject_id: str) -> None:
    """Tell ``kind``'s ``on_dead`` hook that job ``job_id`` is dead; never raises.

    A failing hook is logged by class name and left: the dead job is on the operators' list
    whatever the subject shows.
    """
    hook = _dead_hooks.get(kind)
    if hook is None:
        return
    try:
        hook(ctx, subject_id)
    except Exception as exc:
        logger.warning("on_dead hook of job %s (%s) failed with %s", job_id, kind, error_code(exc))


def _name(fn: Handler) -> str:
    return f"{fn.__module__}.{fn.__qualname__}"


def get_handler(kind: str) -> Handler | None:
    return _handlers.get(kind)
