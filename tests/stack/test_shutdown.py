"""``benchmax dev`` and ``benchmax stack`` as a process manager runs them: started on free
ports, signalled once, and then nothing they started may be left — no process of their tree
or its groups, no port held — within the grace period plus five seconds, and the job that was
in flight either finished or was handed back to be sent again exactly once. Under the stack,
a worker and the S3 server SIGKILLed are restarted while the stack stays up, and no stored
evidence is lost.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from sqlalchemy import Engine

from benchmax.db import make_engine
from benchmax.models import JobState
from benchmax.runtime.supervisor import EXIT_STOPPED
from benchmax.services.jobs import JobContext, claim_job, enqueue, sweep
from benchmax.settings import Settings
from benchmax.stack.topology import PG_ADMIN_URL, Stack, StackConfig
from tests.conftest import ROOT
from tests.stack import shutdown_jobs
from tests.stack.client import StackClient
from tests.stack.conftest import SHORT_TIMINGS
from tests.stack.processes import (
    Tree,
    free_port_block,
    port_is_free,
    start_command,
    stop_all,
    wait_for_line,
    wait_until_gone,
)
from tests.support.jobs_fixtures import RecordedJobQueue, ago, reload_job, set_job
from tests.support.workers import WORKER

pytestmark = pytest.mark.timeout(600)

GRACE = 4.0
LISTENING = b"Listening started."  # a Taskiq worker's line once it takes messages
WITHIN = GRACE + 5


def _clean_env(directory: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BENCHMAX_")}
    env.update(
        {
            "PYTHONUNBUFFERED": "1",
            "BENCHMAX_SHUTDOWN_GRACE_SECONDS": str(GRACE),
            shutdown_jobs.DIR_ENV: str(directory),
        }
    )
    return env


def _enqueue_sleeper(ctx: JobContext, name: str, seconds: float) -> int:
    """A job row written from outside the command's processes, so its id reaches them only
    through their sweeper: dated as if its message had been lost a while ago."""
    with ctx.session() as session:
        job = enqueue(session, shutdown_jobs.SLEEPER, f"{name}:{seconds}")
    assert job.id is not None
    set_job(ctx.engine, job.id, updated_at=ago(3600), next_attempt_at=ago(1))
    return job.id


def _wait_started(directory: Path, name: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while f"start {name}" not in shutdown_jobs.runs(directory):
        assert time.monotonic() < deadline, f"{name} never started"
        time.sleep(0.1)


def _signal_and_watch(process: object, tree: Tree, sig: int, ports: list[int]) -> int:
    """Send ``sig``, then check the command and everything it started end in time."""
    import subprocess

    assert isinstance(process, subprocess.Popen)
    assert tree.note() >= 2, "the command started nothing?"
    sent = time.monotonic()
    os.kill(process.pid, sig)
    code = process.wait(timeout=WITHIN)
    wait_until_gone(tree, ports, deadline=sent + WITHIN)
    return int(code)


@pytest.fixture
def job_dir(tmp_path: Path, stack_marked: None) -> Path:
    directory = tmp_path / "jobs"
    directory.mkdir()
    return directory


def test_benchmax_dev_stops_everything_on_sigint_and_lets_the_running_job_finish(
    tmp_path: Path, job_dir: Path
) -> None:
    base = free_port_block([0, 1])
    data_dir = tmp_path / "var"
    # Every Python process of the tree imports the test job kind before anything else.
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import tests.stack.shutdown_jobs  # noqa: F401\n")
    env = _clean_env(job_dir)
    env.update(
        {
            "BENCHMAX_ENV": "test",
            "BENCHMAX_SWEEP_INTERVAL_SECONDS": "1",
            "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)]),
            # A build folder of its own: the browser suite's servers may be using .web.
            "REFLEX_WEB_WORKDIR": f".web-shutdown{WORKER}",
        }
    )
    log = tmp_path / "dev.log"
    args = ["dev", "--port", str(base), "--usercontent-port", str(base + 1)]
    process = start_command([*args, "--data-dir", str(data_dir)], env, log)
    tree = Tree(process.pid)
    try:
        wait_for_line(log, "BenchMax is running", process, timeout=600)
        settings = Settings(_env_file=None, env="test", data_dir=data_dir)
        ctx = JobContext.from_settings(settings, engine=make_engine(settings.resolved_database_url))
        job_id = _enqueue_sleeper(ctx, "inflight", GRACE / 2)  # the embedded sweeper sends it
        _wait_started(job_dir, "inflight")

        code = _signal_and_watch(process, tree, signal.SIGINT, [base, base + 1])
    finally:
        stop_all(process, tree, timeout=WITHIN)
    assert code == EXIT_STOPPED, log.read_text()[-3000:]
    assert "SIGINT: stopping" in log.read_text()
    assert reload_job(ctx.engine, job_id).state == JobState.DONE
    assert shutdown_jobs.runs(job_dir) == ["start inflight", "end inflight"]


def _pids(log: Path) -> dict[str, int]:
    line = next(x for x in log.read_text().splitlines() if x.strip().startswith("processes:"))
    return {name: int(pid) for name, pid in re.findall(r"([\w-]+)=(\d+)", line)}


def _object_exists(config: StackConfig, key: str) -> bool:
    client = boto3.client(
        "s3", endpoint_url=f"http://127.0.0.1:{config.s3_port}", region_name="us-east-1",
        aws_access_key_id="stack", aws_secret_access_key="stack-local-moto-secret",
    )  # fmt: skip
    try:
        client.head_object(Bucket="benchmax-stack", Key=key)
    except client.exceptions.ClientError:
        return False
    return True


def _wait_listening(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while port_is_free(port):
        assert time.monotonic() < deadline, f"nothing listens on {port}"
        time.sleep(0.1)


@pytest.fixture
def stack_database() -> Iterator[str]:
    import psycopg

    name = f"benchmax_shutdown_{uuid.uuid4().hex[:8]}"
    yield name
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_benchmax_stack_restarts_what_dies_and_on_sigterm_hands_back_the_running_job(
    tmp_path: Path, job_dir: Path, stack_database: str
) -> None:
    base = free_port_block([0, 1, 9, 11, 12, 13])
    config = StackConfig(
        base_port=base, redis_port=base + 13, s3_port=base + 9, database=stack_database,
        data_dir=tmp_path / "stack", serve_frontend=False, extra_env=SHORT_TIMINGS,
    )  # fmt: skip
    env = {**_clean_env(job_dir), **SHORT_TIMINGS}
    log = tmp_path / "stack.log"
    process = start_command(
        ["stack", "--no-frontend", "--port", str(base), "--redis-port", str(config.redis_port),
         "--s3-port", str(config.s3_port), "--database", stack_database,
         "--data-dir", str(config.data_dir), "--start-timeout", "300",
         "--worker-import", "tests.stack.shutdown_jobs"],
        env, log,
    )  # fmt: skip
    tree = Tree(process.pid)
    client: StackClient | None = None
    try:
        seen = wait_for_line(log, "stops them all", process, timeout=400)
        tree.note()
        client = StackClient(Stack(config), handle=f"s{uuid.uuid4().hex[:10]}")
        first = client.submit_until_accepted(base, "before the faults", time.monotonic() + 60)
        assert client.wait_done(base, [first], timeout=90) == {first: "public"}
        keys = [k for (k,) in client.rows(
            "SELECT storage_key FROM evidence_file WHERE test_id = :t", t=first)]  # fmt: skip
        assert keys
        assert all(_object_exists(config, k) for k in keys)

        # The operator's CLI, pointed at the running stack as the README says.
        listed = subprocess.run(
            ["bash", "-c", f". {config.data_dir / 'stack.env'} && {sys.executable} -m "
             "benchmax.cli jobs list --state done"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert listed.returncode == 0, listed.stderr
        assert "publish_test" in listed.stdout

        pids = _pids(log)
        worker_log = config.data_dir / "logs" / "worker-1.log"
        listening = worker_log.read_bytes().rfind(LISTENING)
        for name in ("worker-1", "s3"):
            os.killpg(pids[name], signal.SIGKILL)
        for name in ("worker-1", "s3"):
            wait_for_line(log, f"{name} restarted", process, timeout=30, after=seen)
        # A worker stopped while still starting up could only be killed; wait until it serves.
        wait_for_line(worker_log, LISTENING.decode(), process, timeout=120, after=listening + 1)
        tree.note()
        assert process.poll() is None, "the stack stopped with its child"
        _wait_listening(config.s3_port)
        assert all(_object_exists(config, k) for k in keys), "the S3 restart lost evidence"
        second = client.submit_until_accepted(base, "after the faults", time.monotonic() + 60)
        assert client.wait_done(base, [second], timeout=120) == {second: "public"}

        settings = Settings(
            _env_file=None, env="test", database_url=config.database_url,
            job_lease_seconds=int(SHORT_TIMINGS["BENCHMAX_JOB_LEASE_SECONDS"]),
            scan_timeout_seconds=int(SHORT_TIMINGS["BENCHMAX_SCAN_TIMEOUT_SECONDS"]),
        )  # fmt: skip
        engine: Engine = make_engine(config.database_url)
        ctx = JobContext.from_settings(settings, engine=engine)
        job_id = _enqueue_sleeper(ctx, "long", 120)  # the stack's scheduler sweeps it out
        _wait_started(job_dir, "long")

        ports = [base, base + 1, base + 9, base + 11, base + 12, base + 13]
        code = _signal_and_watch(process, tree, signal.SIGTERM, ports)
    finally:
        if client is not None:
            client.close()
        stop_all(process, tree, timeout=WITHIN)
    text = log.read_text()
    assert code == EXIT_STOPPED, text[-3000:]
    assert "SIGTERM: stopping" in text

    released = reload_job(engine, job_id)
    assert (released.state, released.attempts, released.lease_owner) == (JobState.PENDING, 0, "")
    # The next sweeper sends it once, and it runs to the end.
    queue = RecordedJobQueue()
    ctx.queue.attach(queue.dispatcher)
    try:
        sweep(ctx)
        assert queue.wait_for(1).count(job_id) == 1
        sweep(ctx)
        time.sleep(0.2)
        assert queue.received.count(job_id) == 1
    finally:
        ctx.queue.attach(None)
        queue.dispatcher.close()
    with ctx.session() as session:
        again = claim_job(session, job_id, "next-worker:1:t", lease_seconds=60)
    assert again is not None
    assert again.attempts == 1
    assert shutdown_jobs.runs(job_dir) == ["start long"]  # interrupted once, never doubled
