"""An S3 API over real HTTP for tests: moto's threaded server on a free loopback port.

The server is shared by the whole session (one per xdist worker, each on a port the OS picks);
every test (or module world) gets a bucket of its own, so tests never see each other's objects.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from moto.server import ThreadedMotoServer

from benchmax.adapters.storage import ObjectStorage
from benchmax.adapters.storage.local import LocalStorage
from benchmax.adapters.storage.s3 import S3Storage
from benchmax.settings import CoreSettings


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


def make_s3_settings(endpoint: str) -> CoreSettings:
    """Settings naming a fresh, existing bucket on the test server."""
    settings = CoreSettings(
        _env_file=None,
        env="test",
        storage_backend="s3",
        s3_endpoint_url=endpoint,
        s3_bucket=f"bmx-{uuid.uuid4().hex[:12]}",
        s3_region="us-east-1",
        s3_access_key_id="testing",
        s3_secret_access_key="testing",
    )
    S3Storage.from_settings(settings).client.create_bucket(Bucket=settings.s3_bucket)
    return settings


@pytest.fixture
def s3_settings(s3_endpoint: str) -> CoreSettings:
    return make_s3_settings(s3_endpoint)


@pytest.fixture
def s3_storage(s3_settings: CoreSettings) -> S3Storage:
    return S3Storage.from_settings(s3_settings)


@pytest.fixture(params=["local", "s3"])
def object_storage(request: pytest.FixtureRequest, tmp_path: Path) -> ObjectStorage:
    """Each backend in turn, empty: for tests that must hold on both."""
    if request.param == "s3":
        s3: S3Storage = request.getfixturevalue("s3_storage")
        return s3
    return LocalStorage(tmp_path / "objects")
