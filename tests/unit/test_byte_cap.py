"""The one byte counter: refuses the moment a stream passes its cap, never before."""

from __future__ import annotations

import pytest

from benchmax.services.byte_cap import ByteCap
from benchmax.services.errors import TooLarge


def _cap(max_bytes: int) -> ByteCap:
    return ByteCap(max_bytes, TooLarge("too_big", "Too big.", "files"))


def test_a_stream_at_the_cap_passes_whole() -> None:
    cap = _cap(6)
    assert b"".join(cap.chunks([b"abc", b"def"])) == b"abcdef"
    assert (cap.received, cap.exceeded) == (6, False)


def test_the_chunk_that_passes_the_cap_is_never_handed_on() -> None:
    cap = _cap(5)
    passed: list[bytes] = []
    with pytest.raises(TooLarge) as refused:
        passed.extend(cap.chunks([b"abc", b"def", b"ghi"]))
    assert passed == [b"abc"]
    assert (refused.value.code, refused.value.field, refused.value.status) == (
        "too_big",
        "files",
        413,
    )
    assert cap.exceeded


@pytest.mark.parametrize("declared", [7, -1])  # over, and a malformed Content-Length
def test_a_declared_length_over_the_cap_is_refused_before_reading(declared: int) -> None:
    cap = _cap(6)
    with pytest.raises(TooLarge):
        cap.check_declared(declared)
    assert cap.received == 0


@pytest.mark.parametrize("declared", [None, 0, 6])
def test_an_absent_or_fitting_length_is_let_through(declared: int | None) -> None:
    _cap(6).check_declared(declared)
