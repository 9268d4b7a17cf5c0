"""The stack's one-off set-up, run in the stack's environment before the long-lived processes.

Loading ``Settings`` here is the first production check: it refuses to start on an unsafe
configuration before anything serves. Then: the bucket on the S3 server, the migrations, the
catalog, and the local issuer's key (made once here, so the replicas never race to make it).
"""

from __future__ import annotations

import logging

from benchmax.adapters.auth import build_verifier
from benchmax.adapters.storage.s3 import S3Storage
from benchmax.db import make_engine, session_scope
from benchmax.migrations import upgrade
from benchmax.services.catalog.seed import seed_catalog
from benchmax.settings import STACK_RELAXED, get_settings

logger = logging.getLogger("benchmax.stack")


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    settings = get_settings()
    waived = [p for p in settings.production_problems() if any(r in p for r in STACK_RELAXED)]
    for problem in waived:
        logger.warning(
            "LOCAL STACK: production check waived (needs the public internet): %s", problem
        )
    client = S3Storage.from_settings(settings).client
    if settings.s3_bucket not in {b["Name"] for b in client.list_buckets().get("Buckets", [])}:
        client.create_bucket(Bucket=settings.s3_bucket)
    upgrade(settings.resolved_database_url)
    with session_scope(make_engine(settings.resolved_database_url)) as session:
        seed_catalog(session)
    build_verifier(settings)
    logger.info("stack set-up done")


if __name__ == "__main__":
    main()
