"""Is each dependency reachable? The checks behind ``GET /healthz``.

Each is a blocking call (SQL, S3, Redis) that returns a short "ok" or raises; the route
reports only a failure's type name, never its message (a connection error can quote a URL
with its password).
"""

from __future__ import annotations

from sqlalchemy import Engine, text

from benchmax.adapters.storage import ObjectStorage
from benchmax.settings import Settings


def check_database(engine: Engine) -> str:
    with engine.connect() as conn:
        conn.execute(text("SELECT 1"))
    return "ok"


def check_storage(storage: ObjectStorage) -> str:
    storage.check()
    return "ok"


def check_queue(settings: Settings) -> str:
    if settings.queue_backend == "memory":
        return "ok (in-process)"
    import redis

    client = redis.Redis.from_url(settings.redis_url, socket_timeout=2)
    try:
        client.ping()
    finally:
        client.close()
    return "ok"
