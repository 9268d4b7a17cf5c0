"""The storage port's shared rules: key validation, range checks and chunking."""

from __future__ import annotations

import io

import pytest

from benchmax.adapters.storage import (
    InvalidKeyError,
    InvalidRangeError,
    check_range,
    iter_chunks,
    validate_key,
)


@pytest.mark.parametrize(
    "key",
    [
        "evidence/abc/file.png",
        "quarantine/x",
        "private/backups/2025-01-01/manifest.json",
        "evidence/名前/ファイル.txt",
        "evidence/a..b",
        "a" * 1024,
    ],
)
def test_valid_keys(key: str) -> None:
    assert validate_key(key) == key


@pytest.mark.parametrize(
    "key",
    [
        "",
        "/absolute",
        "..",
        "../up",
        "a/../b",
        "a/./b",
        "./a",
        "a//b",
        "a/",
        "a\\b",
        "C:\\windows",
        "nul\x00byte",
        "tab\there",
        "del\x7f",
        "a/.hidden",
        "a" * 1025,
        "é" * 513,  # 1026 bytes in UTF-8
    ],
)
def test_invalid_keys(key: str) -> None:
    with pytest.raises(InvalidKeyError):
        validate_key(key)


@pytest.mark.parametrize(("start", "end"), [(None, None), (0, 0), (3, None), (None, 9), (2, 5)])
def test_ranges_that_can_be_valid(start: int | None, end: int | None) -> None:
    check_range(start, end)


@pytest.mark.parametrize(("start", "end"), [(-1, None), (None, -1), (5, 4)])
def test_ranges_that_never_are(start: int | None, end: int | None) -> None:
    with pytest.raises(InvalidRangeError):
        check_range(start, end)


def test_iter_chunks_reads_file_objects_in_bounded_chunks() -> None:
    # Lines would be the wrong unit: one long line must still be cut into chunks.
    data = b"x" * 10 + b"\n" + b"y" * 3

    assert list(iter_chunks(io.BytesIO(data), 4)) == [b"xxxx", b"xxxx", b"xx\ny", b"yy"]


def test_iter_chunks_passes_iterables_through_without_empties() -> None:
    assert list(iter_chunks([b"a", b"", b"bc"], 4)) == [b"a", b"bc"]
