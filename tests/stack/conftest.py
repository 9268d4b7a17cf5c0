"""The production topology (``benchmax.stack``) started once per session for the tests here.

The stack runs API-only (no front-end build, which would take minutes); its ports, Redis and
database are its own (``BENCHMAX_STACK_TEST_PORT``, default 4740; Redis on 6390; database
``benchmax_stack_test_<port>``, recreated empty each session; the next xdist worker +20, +1).
Leases and sweeps are short so the fault tests see the sweeper at work within seconds.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmax.stack.topology import PG_ADMIN_URL, Stack, StackConfig
from tests.stack.client import StackClient
from tests.workers import WORKER_INDEX

# Each xdist worker that reaches these tests gets a stack of its own, 20 ports further on.
PORT = int(os.environ.get("BENCHMAX_STACK_TEST_PORT", "4740")) + 20 * WORKER_INDEX
REDIS_PORT = int(os.environ.get("BENCHMAX_STACK_TEST_REDIS_PORT", "6390")) + WORKER_INDEX
DATABASE = f"benchmax_stack_test_{PORT}"


def _recreate_database() -> None:
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')


@pytest.fixture(scope="session")
def production_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    _recreate_database()
    config = StackConfig(
        base_port=PORT,
        redis_port=REDIS_PORT,
        s3_port=PORT + 9,
        database=DATABASE,
        data_dir=Path(tmp_path_factory.mktemp("stack")),
        serve_frontend=False,
        extra_env={
            "BENCHMAX_JOB_LEASE_SECONDS": "12",
            "BENCHMAX_SCAN_TIMEOUT_SECONDS": "10",
            "BENCHMAX_SWEEP_INTERVAL_SECONDS": "2",
            "BENCHMAX_API_SUBMISSION_RATE_LIMIT": "10000",
        },
    )
    stack = Stack(config)
    try:
        stack.start(timeout=240)
        yield stack
    finally:
        stack.stop()


@pytest.fixture
def stack_client(production_stack: Stack) -> Iterator[StackClient]:
    client = StackClient(production_stack, handle=f"c{uuid.uuid4().hex[:10]}")
    yield client
    client.close()
