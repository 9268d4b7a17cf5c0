"""The production topology (``benchmax.stack``) started for the tests here.

``production_stack`` runs API-only, once per session (a front-end build would take minutes);
its ports, Redis and database are its own (``BENCHMAX_STACK_TEST_PORT``, default 4740; Redis on
6390; database ``benchmax_stack_test_<port>``, recreated empty each session; the next xdist
worker +20, +1). ``frontend_stack`` is the same topology serving the built front end, for the
browser test alone: it builds into a folder of its own (``.web-stack-<port>``), since the
browser suite's dev servers may be serving ``.web`` and ``.web-gwN`` at the same time, and
sits on ports past every worker's API-only stack, with its Redis inside its own range. It lives
for one module, so its processes do not idle through the rest of the session. That test runs
in the backend invocation, not the browser suite's: the browser suite hands out its files
biggest first, so a one-test file there would run last and alone, while here the unit tests
keep the other worker busy. Sweeps are short and leases long, so the fault tests see recovery
come from the workers' heartbeats, within seconds, and never from a lease running out.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmax.stack.topology import PG_ADMIN_URL, Stack, StackConfig
from tests.stack.client import StackClient
from tests.support.workers import WORKER_COUNT, WORKER_INDEX

# Each xdist worker that reaches these tests gets a stack of its own, 20 ports further on.
BASE_PORT = int(os.environ.get("BENCHMAX_STACK_TEST_PORT", "4740"))
PORT = BASE_PORT + 20 * WORKER_INDEX
REDIS_PORT = int(os.environ.get("BENCHMAX_STACK_TEST_REDIS_PORT", "6390")) + WORKER_INDEX
FRONTEND_PORT = BASE_PORT + 20 * (WORKER_COUNT + WORKER_INDEX)
SHORT_TIMINGS = {
    # Long enough that no recovery here can be the lease running out: a killed worker's jobs
    # come back through its heartbeats stopping (10 s) and the sweep.
    "BENCHMAX_JOB_LEASE_SECONDS": "120",
    "BENCHMAX_SCAN_TIMEOUT_SECONDS": "10",
    "BENCHMAX_SWEEP_INTERVAL_SECONDS": "2",
    "BENCHMAX_API_SUBMISSION_RATE_LIMIT": "10000",
}


def _started(
    port: int, redis_port: int, data_dir: Path, *, serve_frontend: bool
) -> Iterator[Stack]:
    import psycopg

    database = f"benchmax_stack_test_{port}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
    env = dict(SHORT_TIMINGS)
    if serve_frontend:
        env["REFLEX_WEB_WORKDIR"] = f".web-stack-{port}"
    config = StackConfig(
        base_port=port,
        redis_port=redis_port,
        s3_port=port + 9,
        database=database,
        data_dir=data_dir,
        serve_frontend=serve_frontend,
        extra_env=env,
    )
    stack = Stack(config)
    try:
        # The front-end build comes first: half a minute here, more on a loaded machine.
        stack.start(timeout=600 if serve_frontend else 240)
        yield stack
    finally:
        stack.stop()


@pytest.fixture(scope="session")
def production_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    data_dir = Path(tmp_path_factory.mktemp("stack"))
    yield from _started(PORT, REDIS_PORT, data_dir, serve_frontend=False)


@pytest.fixture(scope="module")
def frontend_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    data_dir = Path(tmp_path_factory.mktemp("frontend-stack"))
    yield from _started(FRONTEND_PORT, FRONTEND_PORT + 8, data_dir, serve_frontend=True)


@pytest.fixture
def stack_marked() -> None:
    """For tests that start BenchMax's commands themselves: marks them ``stack`` (see
    ``tests/support/needs.py``), as slow and needing what a stack needs."""


@pytest.fixture
def stack_client(production_stack: Stack) -> Iterator[StackClient]:
    client = StackClient(production_stack, handle=f"c{uuid.uuid4().hex[:10]}")
    yield client
    client.close()
