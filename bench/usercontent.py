"""How fast and how lean is the user-content service next to Starlette's FileResponse?

Both servers run under uvicorn on loopback in this same run, serving the same bytes from the
same disk: the service (database authorisation + local storage streaming) and a bare
``FileResponse`` app. Prints, for a 1 GiB file and for 200 concurrent small files:

- throughput as a ratio service / FileResponse (target >= 0.8),
- the service's peak RSS growth while streaming 1 GiB (target < 50 MiB),
- errors: wrong status, length or SHA-256 (target 0).

Everything lives in a temporary directory, never in the repository.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a plain script from anywhere

from sqlmodel import Session  # noqa: E402

from benchmax.adapters.storage.local import LocalStorage  # noqa: E402
from benchmax.db import make_engine  # noqa: E402
from benchmax.migrations import upgrade  # noqa: E402
from benchmax.models import EvidenceFile, EvidenceKind, EvidenceState, Test, TestState, User  # noqa: E402

BIG_SIZE = 1024**3
SMALL_COUNT = 200
SMALL_SIZE = 32 * 1024
ROUNDS = 3
# Small-file rounds are short and noisy on a shared machine; the median of more is steadier.
SMALL_ROUNDS = 7
_LISTENING = re.compile(r"Uvicorn running on http://127\.0\.0\.1:(\d+)")


@dataclass
class Fixture:
    big_url: tuple[str, str]  # (service path, reference path)
    big_digest: str
    small: list[tuple[str, str, str]] = field(default_factory=list)  # + expected sha256


def _big_chunks() -> Iterator[bytes]:
    block = os.urandom(1024 * 1024)
    for _ in range(BIG_SIZE // len(block)):
        yield block


def _prepare(workdir: Path) -> tuple[str, Fixture]:
    database_url = f"sqlite:///{workdir / 'bench.db'}"
    upgrade(database_url)
    storage = LocalStorage(workdir / "objects")
    engine = make_engine(database_url)

    def add(
        session: Session, test: Test, key: str, chunks: Iterator[bytes], kind: EvidenceKind
    ) -> tuple[str, str]:
        """Store the bytes and an approved row for them; return the row id and SHA-256."""
        digest = hashlib.sha256()

        def hashed() -> Iterator[bytes]:
            for chunk in chunks:
                digest.update(chunk)
                yield chunk

        info = storage.put(key, hashed())
        row = EvidenceFile(
            test_id=test.id,
            kind=kind,
            original_name="f",
            safe_name="f.bin",
            content_type="video/mp4",
            size_bytes=info.size,
            sha256=digest.hexdigest(),
            storage_key=key,
            state=EvidenceState.APPROVED,
        )
        session.add(row)
        session.flush()
        return row.id, digest.hexdigest()

    with Session(engine, expire_on_commit=False) as session:
        user = User(handle="bench", display_name="Bench", auth_subject="bench")
        session.add(user)
        session.flush()
        test = Test(
            contributor_id=user.id,
            prompt="bench",
            model_label="m",
            harness_label="h",
            reasoning_label="r",
            state=TestState.PUBLIC,
        )
        session.add(test)
        session.flush()
        big_id, big_digest = add(
            session, test, "evidence/bench/big", _big_chunks(), EvidenceKind.VIDEO
        )
        fixture = Fixture((f"/e/{big_id}/big.mp4", "/f/evidence/bench/big"), big_digest)
        for n in range(SMALL_COUNT):
            key = f"evidence/bench/small-{n}"
            data = [os.urandom(SMALL_SIZE)]
            small_id, digest = add(session, test, key, iter(data), EvidenceKind.TEXT)
            fixture.small.append((f"/e/{small_id}/s.txt", f"/f/{key}", digest))
        session.commit()
    engine.dispose()
    return database_url, fixture


def reference_app(root: Path):
    """The yardstick: Starlette serving files straight from disk."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import FileResponse
    from starlette.routing import Route

    async def serve(request: Request) -> FileResponse:
        return FileResponse(root / request.path_params["key"])

    return Starlette(routes=[Route("/f/{key:path}", serve)])


@contextmanager
def _server(command_line: list[str], env: dict[str, str], cwd: Path) -> Iterator[tuple[str, int]]:
    """Start uvicorn on port 0 and yield its base URL and process id."""
    process = subprocess.Popen(command_line, env=env, cwd=cwd, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    try:
        for line in process.stderr:
            match = _LISTENING.search(line)
            if match:
                # Keep draining stderr so the server never blocks on a full pipe.
                threading.Thread(target=process.stderr.read, daemon=True).start()
                yield f"http://127.0.0.1:{match.group(1)}", process.pid
                return
        raise RuntimeError(f"server did not start: {command_line}")
    finally:
        process.terminate()
        process.wait(timeout=30)


def _uvicorn(target: str) -> list[str]:
    return [sys.executable, "-m", "uvicorn", target, "--host", "127.0.0.1", "--port", "0",
            "--no-access-log", "--no-server-header"]  # fmt: skip


class RssSampler:
    """Peak resident memory of one process, sampled every 10 ms in a thread."""

    def __init__(self, pid: int) -> None:
        self.process = psutil.Process(pid)
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self.process.memory_info().rss)
            time.sleep(0.01)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _stream_big(base: str, path: str, expected_size: int) -> tuple[float, int]:
    """Seconds to stream the whole file, and 1 if its length was wrong."""
    received = 0
    started = time.perf_counter()
    with httpx.Client(timeout=120) as client, client.stream("GET", base + path) as response:
        for chunk in response.iter_raw():
            received += len(chunk)
        status = response.status_code
    elapsed = time.perf_counter() - started
    return elapsed, int(status != 200 or received != expected_size)


async def _fetch_small(base: str, items: list[tuple[str, str]]) -> tuple[float, int]:
    """Seconds to fetch every file at once, and how many came back wrong."""
    limits = httpx.Limits(max_connections=SMALL_COUNT, max_keepalive_connections=SMALL_COUNT)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=60) as client:

        async def one(path: str, digest: str) -> int:
            response = await client.get(path)
            ok = (
                response.status_code == 200
                and hashlib.sha256(response.content).hexdigest() == digest
            )
            return int(not ok)

        started = time.perf_counter()
        errors = await asyncio.gather(*(one(path, digest) for path, digest in items))
        return time.perf_counter() - started, sum(errors)


def main() -> int:
    workdir = Path(tempfile.mkdtemp(prefix="benchmax-bench-"))
    try:
        print(f"preparing {BIG_SIZE >> 20} MiB + {SMALL_COUNT} x {SMALL_SIZE >> 10} KiB ...")
        database_url, fixture = _prepare(workdir)
        env = {
            "PATH": os.environ.get("PATH", ""),
            "PYTHONPATH": str(ROOT),
            "BENCHMAX_DATABASE_URL": database_url,
            "BENCHMAX_STORAGE_LOCAL_ROOT": str(workdir / "objects"),
        }
        reference_env = env | {"BENCH_REFERENCE_ROOT": str(workdir / "objects")}
        reference_command = [*_uvicorn("bench.usercontent:reference_from_env"), "--factory"]
        with (
            _server(_uvicorn("usercontent_service.app:app"), env, workdir) as (service, pid),
            _server(reference_command, reference_env, workdir) as (reference, _),
        ):
            process = psutil.Process(pid)
            # Warm both up (imports, connection pools, page cache) before measuring.
            for base, path in ((service, fixture.big_url[0]), (reference, fixture.big_url[1])):
                _stream_big(base, path, BIG_SIZE)
            baseline = process.memory_info().rss

            big: dict[str, list[float]] = {"service": [], "reference": []}
            errors = 0
            with RssSampler(pid) as sampler:
                for _ in range(ROUNDS):
                    for name, base, path in (
                        ("service", service, fixture.big_url[0]),
                        ("reference", reference, fixture.big_url[1]),
                    ):
                        elapsed, wrong = _stream_big(base, path, BIG_SIZE)
                        big[name].append(BIG_SIZE / elapsed)
                        errors += wrong if name == "service" else 0

            small: dict[str, list[float]] = {"service": [], "reference": []}
            for base, index in ((service, 0), (reference, 1)):  # warm both up, untimed
                asyncio.run(_fetch_small(base, [(item[index], item[2]) for item in fixture.small]))
            for _ in range(SMALL_ROUNDS):
                for name, base, index in (("service", service, 0), ("reference", reference, 1)):
                    items = [(item[index], item[2]) for item in fixture.small]
                    elapsed, wrong = asyncio.run(_fetch_small(base, items))
                    small[name].append(SMALL_COUNT / elapsed)
                    errors += wrong if name == "service" else 0

        mib = 1024 * 1024
        big_service, big_reference = (statistics.median(big[k]) for k in ("service", "reference"))
        small_service, small_reference = (
            statistics.median(small[k]) for k in ("service", "reference")
        )
        print(f"1 GiB stream: service {big_service / mib:.0f} MiB/s, "
              f"FileResponse {big_reference / mib:.0f} MiB/s, "
              f"ratio {big_service / big_reference:.2f} (target >= 0.8)")  # fmt: skip
        print(f"{SMALL_COUNT} concurrent small files: service {small_service:.0f} files/s, "
              f"FileResponse {small_reference:.0f} files/s, "
              f"ratio {small_service / small_reference:.2f} (target >= 0.8)")  # fmt: skip
        print(f"peak RSS growth while streaming 1 GiB: {(sampler.peak - baseline) / mib:.1f} MiB "
              f"(baseline {baseline / mib:.0f} MiB; target < 50 MiB)")  # fmt: skip
        print(f"errors: {errors} (target 0)")
        return 1 if errors else 0
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def reference_from_env():
    """Factory for the reference server's process, which is started by ``main``."""
    return reference_app(Path(os.environ["BENCH_REFERENCE_ROOT"]))


if __name__ == "__main__":
    sys.exit(main())
