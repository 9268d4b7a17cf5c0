"""Start, watch and stop the production topology on this machine: one process per part.

The parts and their order: PostgreSQL (started if not running, as ``make services`` does) with
a database of the stack's own; a Redis of the stack's own (its child, so faults can restart
it); moto's S3 API keeping its objects under ``<data>/s3`` (``benchmax.stack.s3server``);
migrations and the catalog; the front end built once; two web replicas on the Redis state
manager behind one round-robin port; the user-content service; two Taskiq workers on Redis
streams; exactly one scheduler. Every process logs to ``<data>/logs/<name>.log``, runs in a
process group of its own and is stopped as ``benchmax.runtime.supervisor`` says: the
application first, with the grace period, then Redis and S3.

Everything runs with ``BENCHMAX_ENV=production`` and ``BENCHMAX_STACK_LOCAL=1``: the settings'
production checks all apply except the two that need the public internet (TLS on the origins,
Clerk), which that flag waives only while both origins are loopback.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from benchmax.runtime.supervisor import Supervisor
from benchmax.settings import Settings

ROOT = Path(__file__).resolve().parent.parent.parent
PG_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
INFRA = 0
"""The supervisor's tier of Redis and S3: stopped after everything that uses them."""


@dataclass(frozen=True)
class StackConfig:
    """Ports and places. Ports: base (the app), base+1 (evidence), base+11.. (replicas)."""

    base_port: int = 4700
    redis_port: int = 6390
    s3_port: int = 4790
    database: str = "benchmax_stack"
    data_dir: Path = Path("var/stack")
    replicas: int = 2
    workers: int = 2
    # Serve the built front end from the replicas; build it first (or reuse what .web holds).
    serve_frontend: bool = True
    build_frontend: bool = True
    extra_env: Mapping[str, str] = field(default_factory=dict)
    # Modules every worker imports besides the product's: job kinds of one's own.
    worker_modules: tuple[str, ...] = ()
    # SIGTERM/SIGINT: how long running jobs may finish; every process of the stack gets it
    # as BENCHMAX_SHUTDOWN_GRACE_SECONDS, so the workers and the supervisor agree.
    grace_seconds: float = Settings.model_fields["shutdown_grace_seconds"].default

    @property
    def app_origin(self) -> str:
        return f"http://localhost:{self.base_port}"

    @property
    def usercontent_origin(self) -> str:
        return f"http://127.0.0.1:{self.base_port + 1}"

    @property
    def database_url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:5432/{self.database}"

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"

    def replica_port(self, index: int) -> int:
        return self.base_port + 11 + index

    def environment(self) -> dict[str, str]:
        """The environment every process of the stack runs with."""
        env = dict(os.environ)
        env.update(
            {
                "BENCHMAX_ENV": "production",
                "BENCHMAX_STACK_LOCAL": "1",
                "BENCHMAX_DATA_DIR": str(self.data_dir.resolve()),
                "BENCHMAX_DATABASE_URL": self.database_url,
                "BENCHMAX_APP_ORIGIN": self.app_origin,
                "BENCHMAX_USERCONTENT_ORIGIN": self.usercontent_origin,
                "BENCHMAX_STORAGE_BACKEND": "s3",
                "BENCHMAX_S3_ENDPOINT_URL": f"http://127.0.0.1:{self.s3_port}",
                "BENCHMAX_S3_BUCKET": "benchmax-stack",
                "BENCHMAX_S3_REGION": "us-east-1",
                "BENCHMAX_S3_ACCESS_KEY_ID": "stack",
                "BENCHMAX_S3_SECRET_ACCESS_KEY": "stack-local-moto-secret",
                "BENCHMAX_AUTH_BACKEND": "local",
                "BENCHMAX_QUEUE_BACKEND": "redis",
                "BENCHMAX_REDIS_URL": self.redis_url,
                "REFLEX_REDIS_URL": self.redis_url,
                "REFLEX_TELEMETRY_ENABLED": "false",
                "REFLEX_CHECK_LATEST_VERSION": "false",
                "REFLEX_USE_SYSTEM_BUN": env.get("REFLEX_USE_SYSTEM_BUN", "1"),
                "PYTHONUNBUFFERED": "1",
                "BENCHMAX_SHUTDOWN_GRACE_SECONDS": str(self.grace_seconds),
            }
        )
        env.update(self.extra_env)
        return env


def _py(*args: str) -> list[str]:
    return [sys.executable, *args]


def ensure_postgres(database: str) -> None:
    """Start PostgreSQL if it is down (as ``make services`` does); create the database."""
    import psycopg

    if subprocess.call(["pg_isready", "-q", "-h", "127.0.0.1", "-p", "5432"]) != 0:
        version = sorted(os.listdir("/etc/postgresql"))[0]
        subprocess.run(
            ["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "start"], check=True
        )
        for _ in range(30):
            if subprocess.call(["pg_isready", "-q", "-h", "127.0.0.1", "-p", "5432"]) == 0:
                break
            time.sleep(1)
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", (database,)
        ).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{database}"')


class Stack:
    """The running processes by name; start them in order, kill or restart one, stop all."""

    def __init__(self, config: StackConfig) -> None:
        self.config = config
        self.env = config.environment()
        self.logs = config.data_dir.resolve() / "logs"
        self.supervisor = Supervisor(config.grace_seconds, cwd=ROOT, env=self.env)

    @property
    def processes(self) -> dict[str, subprocess.Popen[bytes]]:
        return {name: child.process for name, child in self.supervisor.children.items()}

    # -- one process ---------------------------------------------------------------------

    def spawn(self, name: str, command: list[str], *, tier: int = 1) -> subprocess.Popen[bytes]:
        return self.supervisor.spawn(name, command, log=self.logs / f"{name}.log", tier=tier)

    def respawn(self, name: str) -> subprocess.Popen[bytes]:
        return self.supervisor.respawn(name)

    def kill(self, name: str, sig: int = signal.SIGKILL) -> None:
        """Signal a process's whole group (a worker's children too) and reap it."""
        self.supervisor.kill(name, sig)

    def restart(self, name: str) -> subprocess.Popen[bytes]:
        self.kill(name, signal.SIGTERM)
        return self.respawn(name)

    @property
    def cli_env(self) -> Path:
        return self.config.data_dir.resolve() / "stack.env"

    def write_cli_env(self) -> None:
        """``<data>/stack.env``: the settings the stack runs with, as shell ``export`` lines,
        so an operator's ``benchmax`` command reaches this stack: ``. var/stack/stack.env``."""
        lines = [
            f"export {key}={shlex.quote(value)}"
            for key, value in sorted(self.env.items())
            if key.startswith("BENCHMAX_") or key == "REFLEX_REDIS_URL"
        ]
        self.cli_env.parent.mkdir(parents=True, exist_ok=True)
        self.cli_env.write_text("\n".join(lines) + "\n")

    def create_token(self, handle: str) -> str:
        """A new account's API token, made with the operator's CLI in the stack's environment."""
        out = subprocess.run(
            _py("-m", "benchmax.cli", "tokens", "create", "--handle", handle, "--create-user"),
            cwd=ROOT, env=self.env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        return out.stdout.strip()

    def _run_once(self, name: str, command: list[str], timeout: float) -> None:
        process = self.supervisor.spawn(name, command, log=self.logs / f"{name}.log", restart=False)
        if process.wait(timeout=timeout) != 0:
            raise RuntimeError(f"{name} failed; see {self.logs / (name + '.log')}")

    # -- the topology --------------------------------------------------------------------

    def start(self, timeout: float = 600.0) -> None:
        cfg = self.config
        ensure_postgres(cfg.database)
        redis_dir = cfg.data_dir.resolve() / "redis"
        redis_dir.mkdir(parents=True, exist_ok=True)
        self.spawn("redis", [
            shutil.which("redis-server") or "redis-server", "--bind", "127.0.0.1",
            "--port", str(cfg.redis_port), "--save", "", "--appendonly", "no",
            "--dir", str(redis_dir),
        ], tier=INFRA)  # fmt: skip
        self.spawn(
            "s3",
            _py("-m", "benchmax.stack.s3server", "--port", str(cfg.s3_port),
                "--data", str(cfg.data_dir.resolve() / "s3")),
            tier=INFRA,
        )  # fmt: skip
        self.wait_ready(["redis", "s3"], timeout=60)
        self._run_once("setup", _py("-m", "benchmax.stack.setup"), timeout)
        self.write_cli_env()
        if cfg.serve_frontend and cfg.build_frontend:
            self._run_once(
                "frontend-build",
                _py("-m", "reflex", "export", "--frontend-only", "--no-zip", "--env", "prod"),
                timeout,
            )
        backends = []
        for index in range(cfg.replicas):
            port = cfg.replica_port(index)
            backends += ["--backend", f"127.0.0.1:{port}"]
            argv = ["-m", "benchmax.stack.replica", "--port", str(port)]
            self.spawn(
                f"web-{index + 1}", _py(*argv, *([] if cfg.serve_frontend else ["--no-frontend"]))
            )
        proxy = ["--port", str(cfg.base_port), "--grace", str(cfg.grace_seconds), *backends]
        self.spawn("proxy", _py("-m", "benchmax.stack.proxy", *proxy))
        self.spawn(
            "usercontent",
            _py("-m", "benchmax.cli", "usercontent", "--port", str(cfg.base_port + 1)),
        )
        for index in range(cfg.workers):
            imports = [arg for module in cfg.worker_modules for arg in ("--import", module)]
            self.spawn(
                f"worker-{index + 1}",
                _py("-m", "benchmax.cli", "worker", "--workers", "1", *imports),
            )
        self.spawn("scheduler", _py("-m", "benchmax.cli", "scheduler"))
        self.wait_ready(list(self.processes), timeout=timeout)

    def readiness_url(self, name: str) -> str | None:
        cfg = self.config
        if name.startswith("web-"):
            return f"http://127.0.0.1:{cfg.replica_port(int(name[4:]) - 1)}/healthz"
        return {
            "proxy": f"http://127.0.0.1:{cfg.base_port}/healthz",
            "usercontent": f"http://127.0.0.1:{cfg.base_port + 1}/",
            "s3": f"http://127.0.0.1:{cfg.s3_port}/",
        }.get(name)

    def _ready(self, name: str) -> bool:
        if name == "redis":
            import redis

            try:
                return bool(redis.Redis.from_url(self.config.redis_url).ping())
            except redis.RedisError:
                return False
        url = self.readiness_url(name)
        if url is None:
            return True
        try:
            return httpx.get(url, timeout=2).status_code < 500
        except httpx.HTTPError:
            return False

    def wait_ready(self, names: list[str], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        pending = [n for n in names if n in self.processes and n not in ("setup", "frontend-build")]
        while pending:
            for name in list(pending):
                if self.processes[name].poll() is not None:
                    raise RuntimeError(f"{name} exited; see {self.logs / (name + '.log')}")
                if self._ready(name):
                    pending.remove(name)
            if pending and time.monotonic() > deadline:
                raise TimeoutError(f"not ready in {timeout:.0f}s: {', '.join(pending)}")
            time.sleep(0.3)

    def stop(self) -> int:
        """Stop every process, the application before Redis and S3 (see the supervisor);
        ``EXIT_STOPPED``, or ``EXIT_KILLED`` if anything outlived the grace period."""
        return self.supervisor.stop()


@contextmanager
def running(config: StackConfig) -> Iterator[Stack]:
    stack = Stack(config)
    try:
        stack.start()
        yield stack
    finally:
        stack.stop()
