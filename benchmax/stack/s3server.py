"""The stack's local S3 server: moto's S3 API, with every object also kept on disk.

moto keeps its state in memory only (its server has no persistence, and replaying its request
recorder cannot redo a multipart upload, whose ids are random), so a restarted server would
come back empty and every stored file would be gone. This wraps moto's WSGI app: after each
successful request that can change a bucket or an object, the affected object is copied from
moto's own state to ``<data>/<bucket>/`` (or removed there) *before* the response is sent,
so an upload the client saw succeed is on disk. At start the directory is loaded back.

What is kept is what BenchMax's storage adapter relies on: buckets, object bytes, content
type. Uploads still in progress (multipart parts) are not kept: the client's upload fails
and is retried, as with any storage outage. Path-style requests only (the stack's endpoint
is an IP address, which boto3 always addresses path-style).

Run: ``python -m benchmax.stack.s3server --port 4790 --data var/stack/s3``
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import re
import signal
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import FrameType
from typing import Any
from urllib.parse import parse_qs, unquote

logger = logging.getLogger("benchmax.stack.s3")

_MUTATING = {"PUT", "POST", "DELETE"}
_REGION = "us-east-1"
# S3's bucket naming rule: what a folder under the data directory may be called. Anything
# else (``..``, a slash, a NUL) is never a path here, whatever moto answers.
_BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")


def _backend(bucket: str) -> Any:
    """moto's backend holding ``bucket`` (None if no account has it)."""
    from moto.s3.models import s3_backends

    found = s3_backends.bucket_accounts.get(bucket)
    if found is None:
        return None
    partition, account = found
    return s3_backends[account][partition]


def _default_backend() -> Any:
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.s3.models import s3_backends

    return s3_backends[DEFAULT_ACCOUNT_ID]["aws"]


class DiskMirror:
    """Objects as files: ``<bucket>/<sha256 of key>`` and, beside it, ``.json`` with the key
    and content type. Written to a temporary name and renamed, so a crash leaves the old
    object or the new one, never half of one."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lock = threading.Lock()

    def _paths(self, bucket: str, key: str) -> tuple[Path, Path]:
        name = hashlib.sha256(key.encode()).hexdigest()
        folder = self.root / bucket
        return folder / name, folder / f"{name}.json"

    @staticmethod
    def _write(path: Path, data: bytes) -> None:
        tmp = path.with_name(path.name + ".tmp")
        with tmp.open("wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        tmp.replace(path)

    def sync_object(self, bucket: str, key: str) -> None:
        """Make the disk copy of ``bucket/key`` what moto holds now."""
        backend = _backend(bucket)
        fake = backend.get_object(bucket, key) if backend is not None else None
        data_path, meta_path = self._paths(bucket, key)
        with self._lock:
            if fake is None:
                meta_path.unlink(missing_ok=True)
                data_path.unlink(missing_ok=True)
                return
            data_path.parent.mkdir(parents=True, exist_ok=True)
            meta = {"key": key, "content_type": fake.metadata.get("Content-Type", "")}
            self._write(data_path, fake.value)
            self._write(meta_path, json.dumps(meta).encode())

    def sync_bucket(self, bucket: str) -> None:
        """Make the disk copy of the whole bucket what moto holds now (bucket-level changes
        and multi-object deletes)."""
        backend = _backend(bucket)
        folder = self.root / bucket
        if backend is None:
            with self._lock:
                for path in folder.glob("*"):
                    path.unlink()
                if folder.exists():
                    folder.rmdir()
            return
        folder.mkdir(parents=True, exist_ok=True)
        held = set(backend.get_bucket(bucket).keys.keys())
        for stored in self.stored_keys(bucket):
            if stored not in held:
                self.sync_object(bucket, stored)

    def stored_keys(self, bucket: str) -> list[str]:
        keys = []
        for meta_path in (self.root / bucket).glob("*.json"):
            keys.append(str(json.loads(meta_path.read_text())["key"]))
        return keys

    def load(self) -> int:
        """Put every bucket and object on disk back into moto; how many objects."""
        count = 0
        if not self.root.exists():
            return 0
        backend = _default_backend()
        for folder in sorted(p for p in self.root.iterdir() if p.is_dir()):
            backend.create_bucket(folder.name, _REGION)
            for meta_path in folder.glob("*.json"):
                meta = json.loads(meta_path.read_text())
                data = meta_path.with_suffix("").read_bytes()
                fake = backend.put_object(folder.name, meta["key"], data)
                if meta["content_type"]:
                    fake.set_metadata({"Content-Type": meta["content_type"]})
                count += 1
        return count


def _target(path: str) -> tuple[str, str]:
    """(bucket, key) of a path-style request path; key is empty for the bucket itself."""
    bucket, _, key = path.lstrip("/").partition("/")
    return unquote(bucket), unquote(key)


def persistent(app: Callable[..., Iterable[bytes]], mirror: DiskMirror) -> Callable[..., Any]:
    """``app`` (moto's WSGI app), mirroring each successful change to ``mirror``."""

    def wrapped(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        status: list[int] = []

        def remember(code: str, headers: Any, exc_info: Any = None) -> Any:
            status.append(int(code.split()[0]))
            return start_response(code, headers, exc_info)

        body = app(environ, remember)
        method = environ["REQUEST_METHOD"]
        raw_path = str(environ.get("RAW_URI") or environ.get("PATH_INFO", "/"))
        bucket, key = _target(raw_path.partition("?")[0])
        query = parse_qs(environ.get("QUERY_STRING", ""), keep_blank_values=True)
        changed = method in _MUTATING and status and status[0] < 300
        if changed and _BUCKET.fullmatch(bucket) and ".." not in bucket:
            body = list(body)  # moto has finished the change once the body is complete
            if key and "partNumber" not in query:
                mirror.sync_object(bucket, key)
            elif not key:
                mirror.sync_bucket(bucket)
        return body

    return wrapped


def serve(host: str, port: int, data: Path) -> None:
    from moto.moto_server.werkzeug_app import (
        DomainDispatcherApplication,
        MotoRequestHandler,
        create_backend_app,
    )
    from werkzeug.serving import make_server

    mirror = DiskMirror(data)
    app = DomainDispatcherApplication(create_backend_app)
    loaded = mirror.load()
    logger.info("loaded %d objects from %s", loaded, data)
    server = make_server(
        host, port, persistent(app, mirror), threaded=True, request_handler=MotoRequestHandler
    )

    def stop(_signum: int, _frame: FrameType | None) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        server.serve_forever()
    finally:
        server.server_close()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="benchmax.stack.s3server", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--data", type=Path, required=True, help="where objects are kept")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    serve(args.host, args.port, args.data)


if __name__ == "__main__":
    main()
