"""The production topology under faults: replicas share state, nothing is lost or doubled.

Every test submits through the API with an Idempotency-Key and retries with the same key
whenever a request fails, as the API's clients are told to; the counts at the end are read
straight from PostgreSQL.
"""

from __future__ import annotations

import os
import signal
import threading
import time
import uuid

from benchmax.stack.topology import Stack
from tests.stack.client import StackClient


def _ports(stack: Stack) -> tuple[int, int, int]:
    cfg = stack.config
    return cfg.base_port, cfg.replica_port(0), cfg.replica_port(1)


def test_a_submission_through_one_replica_is_followed_on_the_other(
    stack_client: StackClient,
) -> None:
    _proxy, first, second = _ports(stack_client.stack)
    response = stack_client.submit(first, "followed across replicas")
    assert response.status_code == 202, response.text
    test_id = response.json()["id"]
    seen = [stack_client.status(second, test_id)["state"]]
    assert seen[0] in ("processing", "public")
    assert stack_client.wait_done(second, [test_id], timeout=60) == {test_id: "public"}
    public = stack_client.http.get(stack_client.url(first, f"/api/v1/tests/{test_id}")).json()
    assert public["state"] == "public"
    assert public["title"] == "followed across replicas"


def _worker_holding_a_scan(stack: Stack, client: StackClient, timeout: float) -> str | None:
    """The stack's name for the worker process that holds a running job's lease right now."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for (owner,) in client.rows("SELECT lease_owner FROM job WHERE state = 'running'"):
            pid = int(owner.split(":")[1])  # host:pid:token (benchmax.runtime.runner.worker_id)
            for name, process in stack.processes.items():
                try:
                    if name.startswith("worker-") and os.getpgid(pid) == process.pid:
                        return name
                except ProcessLookupError:
                    continue
        time.sleep(0.05)
    return None


def test_faults_while_contributors_submit_lose_nothing_and_double_nothing(
    stack_client: StackClient,
) -> None:
    """SIGKILL a worker mid-scan, restart Redis, SIGKILL a web replica, all during submissions."""
    stack = stack_client.stack
    proxy, _first, second = _ports(stack)
    run = uuid.uuid4().hex[:6]
    titles = [f"fault {run} {i}" for i in range(40)]
    ids: dict[str, str] = {}
    deadline = time.monotonic() + 120

    def contributor(chunk: list[str]) -> None:
        for title in chunk:
            ids[title] = stack_client.submit_until_accepted(proxy, title, deadline)

    threads = [threading.Thread(target=contributor, args=(titles[i::4],)) for i in range(4)]
    for thread in threads:
        thread.start()
    killed_worker = _worker_holding_a_scan(stack, stack_client, timeout=30)
    assert killed_worker is not None, "no scan was running to kill"
    stack.kill(killed_worker)
    stack.restart("redis")
    stack.wait_ready(["redis"], timeout=30)
    stack.kill("web-1")
    assert len(ids) < len(titles), "the submissions ended before the faults: nothing was tested"
    for thread in threads:
        thread.join()
    stack.respawn(killed_worker)
    stack.respawn("web-1")
    stack.wait_ready([killed_worker, "web-1"], timeout=120)

    states = stack_client.wait_done(second, ids.values(), timeout=150)
    assert set(states.values()) == {"public"}
    stack_client.assert_exactly_once(titles)


def test_the_sweeper_resends_what_was_in_flight_when_redis_lost_it(
    stack_client: StackClient,
) -> None:
    """Workers down, Tests accepted, Redis restarted empty: only the sweeper can resend them."""
    stack = stack_client.stack
    proxy, _first, _second = _ports(stack)
    workers = [name for name in stack.processes if name.startswith("worker-")]
    for name in workers:
        stack.kill(name, signal.SIGKILL)
    run = uuid.uuid4().hex[:6]
    titles = [f"sweep {run} {i}" for i in range(5)]
    ids = [stack_client.submit_until_accepted(proxy, t, time.monotonic() + 30) for t in titles]
    stack.restart("redis")
    stack.wait_ready(["redis"], timeout=30)
    for name in workers:
        stack.respawn(name)
    stack.wait_ready(workers, timeout=60)
    states = stack_client.wait_done(proxy, ids, timeout=120)
    assert set(states.values()) == {"public"}
    stack_client.assert_exactly_once(titles)


def test_a_worker_killed_mid_scan_costs_its_contributor_seconds_not_a_lease(
    stack_client: StackClient,
) -> None:
    """One contributor's scans run one at a time; the worker holding one is SIGKILLed. That
    Test and the contributor's next ones are public within 30 s, with a 120 s lease."""
    stack = stack_client.stack
    proxy, _first, second = _ports(stack)
    run = uuid.uuid4().hex[:6]
    titles = [f"killed {run} {i}" for i in range(6)]
    ids: dict[str, str] = {}

    def contributor() -> None:
        for title in titles:
            ids[title] = stack_client.submit_until_accepted(proxy, title, time.monotonic() + 60)

    thread = threading.Thread(target=contributor)
    thread.start()
    killed_worker = _worker_holding_a_scan(stack, stack_client, timeout=60)
    assert killed_worker is not None, "no scan was running to kill"
    stack.kill(killed_worker)
    killed = time.monotonic()
    thread.join()
    try:
        states = stack_client.wait_done(second, ids.values(), timeout=30)
        assert time.monotonic() - killed < 30
        assert set(states.values()) == {"public"}
        stack_client.assert_exactly_once(titles)
    finally:
        stack.respawn(killed_worker)
        stack.wait_ready([killed_worker], timeout=120)
