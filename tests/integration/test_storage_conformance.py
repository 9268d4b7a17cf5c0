"""One behaviour for every storage backend: the same tests on a directory and on S3 over HTTP."""

from __future__ import annotations

import hashlib
import io
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmax.adapters.storage import (
    InvalidKeyError,
    InvalidRangeError,
    ObjectNotFoundError,
    ObjectStorage,
    build_storage,
)
from benchmax.adapters.storage.local import LocalStorage
from benchmax.adapters.storage.s3 import PART_SIZE, S3Storage
from benchmax.settings import CoreSettings

MALICIOUS_KEYS = [
    "",
    "/etc/passwd",
    "../escape",
    "evidence/../../escape",
    "evidence/./x",
    "evidence//x",
    "evidence/x/",
    "evidence\\..\\escape",
    "evidence/x\x00.png",
    "evidence/line\nbreak",
    "evidence/.hidden",
    ".partial/x",
    "evidence/" + "a" * 1100,
]


@pytest.fixture
def storage(object_storage: ObjectStorage) -> ObjectStorage:
    return object_storage


def _read(storage: ObjectStorage, key: str, **kwargs: int | None) -> bytes:
    return b"".join(storage.get(key, **kwargs))  # type: ignore[arg-type]


def test_put_iterable_then_get_and_head(storage: ObjectStorage) -> None:
    info = storage.put("evidence/a/file.txt", [b"hello ", b"", b"world"], content_type="text/plain")

    assert (info.key, info.size) == ("evidence/a/file.txt", 11)
    assert _read(storage, "evidence/a/file.txt") == b"hello world"
    head = storage.head("evidence/a/file.txt")
    assert head is not None
    assert head.size == 11
    assert head.last_modified is not None


def test_put_file_object(storage: ObjectStorage) -> None:
    storage.put("evidence/b", io.BytesIO(b"line one\nline two\n"))

    assert _read(storage, "evidence/b") == b"line one\nline two\n"


def test_put_overwrites(storage: ObjectStorage) -> None:
    storage.put("evidence/c", [b"first version, longer"])
    storage.put("evidence/c", [b"second"])

    assert _read(storage, "evidence/c") == b"second"


def test_empty_object(storage: ObjectStorage) -> None:
    assert storage.put("evidence/empty", []).size == 0

    assert _read(storage, "evidence/empty") == b""
    with pytest.raises(InvalidRangeError):
        _read(storage, "evidence/empty", start=0)


def _random_chunks(total: int, seed: int = 7) -> Iterator[bytes]:
    block = hashlib.sha256(str(seed).encode()).digest() * 4096  # 128 KiB, not all one byte
    sent = 0
    while sent < total:
        piece = block[: min(len(block), total - sent)]
        sent += len(piece)
        yield piece


def test_large_object_streams_in_bounded_chunks(storage: ObjectStorage) -> None:
    size = 2 * PART_SIZE + 12345  # three multipart parts on S3
    expected = hashlib.sha256(b"".join(_random_chunks(size))).hexdigest()

    info = storage.put("evidence/big.bin", _random_chunks(size))

    assert info.size == size
    head = storage.head("evidence/big.bin")
    assert head is not None
    assert head.size == size
    digest = hashlib.sha256()
    chunk_sizes = []
    for chunk in storage.get("evidence/big.bin", chunk_size=64 * 1024):
        chunk_sizes.append(len(chunk))
        digest.update(chunk)
    assert digest.hexdigest() == expected
    assert max(chunk_sizes) <= 64 * 1024
    assert sum(chunk_sizes) == size


def test_large_range_spanning_parts(storage: ObjectStorage) -> None:
    size = PART_SIZE + 1000
    data = b"".join(_random_chunks(size, seed=3))
    storage.put("evidence/span", _random_chunks(size, seed=3))

    start, end = PART_SIZE - 10, PART_SIZE + 9
    assert _read(storage, "evidence/span", start=start, end=end) == data[start : end + 1]


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [
        (0, 0, b"0"),
        (2, 5, b"2345"),
        (7, None, b"789"),
        (None, 3, b"0123"),
        (8, 100, b"89"),
        (9, 9, b"9"),
        (None, None, b"0123456789"),
    ],
)
def test_byte_ranges_are_inclusive(
    storage: ObjectStorage, start: int | None, end: int | None, expected: bytes
) -> None:
    storage.put("evidence/digits", [b"0123456789"])

    assert _read(storage, "evidence/digits", start=start, end=end) == expected


@pytest.mark.parametrize(("start", "end"), [(10, None), (10, 12), (5, 4), (-1, 3), (0, -2)])
def test_bad_ranges_are_refused(storage: ObjectStorage, start: int, end: int | None) -> None:
    storage.put("evidence/digits", [b"0123456789"])

    with pytest.raises(InvalidRangeError):
        storage.get("evidence/digits", start=start, end=end)


def test_missing_object(storage: ObjectStorage) -> None:
    # The error comes from the call itself, before any byte is iterated.
    with pytest.raises(ObjectNotFoundError):
        storage.get("evidence/missing")
    assert storage.head("evidence/missing") is None
    with pytest.raises(ObjectNotFoundError):
        storage.copy("evidence/missing", "evidence/elsewhere")


def test_copy(storage: ObjectStorage) -> None:
    storage.put("quarantine/x/file", [b"payload"])

    storage.copy("quarantine/x/file", "evidence/x/file")

    assert _read(storage, "evidence/x/file") == b"payload"
    assert _read(storage, "quarantine/x/file") == b"payload"


def test_delete_is_idempotent(storage: ObjectStorage) -> None:
    storage.put("evidence/d", [b"bye"])

    storage.delete("evidence/d")
    storage.delete("evidence/d")

    assert storage.head("evidence/d") is None
    with pytest.raises(ObjectNotFoundError):
        storage.get("evidence/d")


def test_list_by_prefix_in_key_order(storage: ObjectStorage) -> None:
    keys = ["evidence/a/b", "evidence/a-c", "evidence/ab", "evidence/a/a/z", "private/m"]
    for key in keys:
        storage.put(key, [key.encode()])

    listed = list(storage.list("evidence/a"))

    assert [info.key for info in listed] == [
        "evidence/a-c",
        "evidence/a/a/z",
        "evidence/a/b",
        "evidence/ab",
    ]
    assert [info.size for info in listed] == [len(b"evidence/a-c"), 14, 12, 11]
    assert [info.key for info in storage.list()] == sorted(keys)
    assert list(storage.list("nothing/")) == []


def test_failed_upload_leaves_nothing(storage: ObjectStorage) -> None:
    def broken() -> Iterator[bytes]:
        yield b"x" * PART_SIZE  # far enough for S3 to have begun a multipart upload
        raise ConnectionError("client went away")

    with pytest.raises(ConnectionError):
        storage.put("evidence/partial", broken())

    assert storage.head("evidence/partial") is None
    assert list(storage.list()) == []
    if isinstance(storage, S3Storage):
        uploads = storage.client.list_multipart_uploads(Bucket=storage.bucket)
        assert uploads.get("Uploads", []) == []


@pytest.mark.parametrize("key", MALICIOUS_KEYS)
def test_malicious_keys_are_refused_everywhere(
    storage: ObjectStorage, key: str, tmp_path: Path
) -> None:
    storage.put("evidence/ok", [b"ok"])
    before = sorted(p for p in tmp_path.rglob("*"))

    with pytest.raises(InvalidKeyError):
        storage.put(key, [b"evil"])
    with pytest.raises(InvalidKeyError):
        storage.get(key)
    with pytest.raises(InvalidKeyError):
        storage.head(key)
    with pytest.raises(InvalidKeyError):
        storage.delete(key)
    with pytest.raises(InvalidKeyError):
        storage.copy("evidence/ok", key)
    with pytest.raises(InvalidKeyError):
        storage.copy(key, "evidence/ok2")

    assert sorted(p for p in tmp_path.rglob("*")) == before
    assert [info.key for info in storage.list()] == ["evidence/ok"]


def test_check_passes(storage: ObjectStorage) -> None:
    storage.check()


def test_check_fails_when_unreachable(s3_settings: CoreSettings, tmp_path: Path) -> None:
    missing_bucket = s3_settings.model_copy(update={"s3_bucket": "no-such-bucket-here"})
    with pytest.raises(Exception):  # noqa: B017, PT011 (botocore's error class is dynamic)
        S3Storage.from_settings(missing_bucket).check()

    local = LocalStorage(tmp_path / "objects")
    shutil.rmtree(tmp_path / "objects")
    with pytest.raises(OSError, match="not a writable directory"):
        local.check()


def test_local_symlink_out_of_root_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_bytes(b"secret")
    local = LocalStorage(tmp_path / "objects")
    (tmp_path / "objects" / "evidence").symlink_to(outside)

    with pytest.raises(InvalidKeyError):
        local.get("evidence/secret")


def test_build_storage_follows_settings(s3_settings: CoreSettings, tmp_path: Path) -> None:
    local_settings = CoreSettings(
        _env_file=None,
        storage_local_root=tmp_path / "objects",
    )

    assert isinstance(build_storage(s3_settings), S3Storage)
    local = build_storage(local_settings)
    assert isinstance(local, LocalStorage)
    assert local.root == (tmp_path / "objects").resolve()
