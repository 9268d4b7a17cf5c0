"""Video: the container's structure is walked (not decoded) so a truncated upload or a file
that merely starts with a video signature is caught.

MP4 is a chain of top-level boxes that must tile the file exactly and include the ``moov``
index players need; WebM is an EBML header followed by one Segment. Both walks read a few
bytes per box or element, so a 500 MiB video costs a handful of seeks.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

from benchmax.services.safety.result import BlockedError

_MAX_TOP_LEVEL_BOXES = 10_000
_EBML_HEADER_ID = 0x1A45DFA3
_SEGMENT_ID = 0x18538067


class _MalformedError(Exception):
    pass


def check_video(path: Path, content_type: str, label: str) -> None:
    size = path.stat().st_size
    try:
        with path.open("rb") as file:
            if content_type == "video/mp4":
                _walk_mp4(file, size)
            else:
                _walk_webm(file, size)
    except _MalformedError:
        raise BlockedError(
            "video_corrupt",
            f"{label} is not a complete MP4 or WebM video: it may be truncated or damaged. "
            "Export it again and upload the new file.",
        ) from None


def _walk_mp4(file: BinaryIO, size: int) -> None:
    offset, seen = 0, set()
    for _ in range(_MAX_TOP_LEVEL_BOXES):
        if offset == size:
            break
        header = _read_exactly(file, offset, 8)
        box_size, box_type = int.from_bytes(header[:4], "big"), header[4:]
        if not (box_type.isascii() and box_type.isalnum()):
            raise _MalformedError
        if box_size == 1:
            box_size = int.from_bytes(_read_exactly(file, offset + 8, 8), "big")
        elif box_size == 0:
            box_size = size - offset
        if box_size < 8 or offset + box_size > size:
            raise _MalformedError
        seen.add(box_type)
        offset += box_size
    else:
        raise _MalformedError
    if b"ftyp" not in seen or b"moov" not in seen:
        raise _MalformedError


def _walk_webm(file: BinaryIO, size: int) -> None:
    element_id, offset = _read_id(file, 0)
    if element_id != _EBML_HEADER_ID:
        raise _MalformedError
    header_size, offset = _read_size(file, offset)
    if header_size is None:
        raise _MalformedError
    segment_id, offset = _read_id(file, offset + header_size)
    if segment_id != _SEGMENT_ID:
        raise _MalformedError
    segment_size, offset = _read_size(file, offset)
    # Live recordings (MediaRecorder) leave the Segment size "unknown"; that is valid.
    if segment_size is not None and offset + segment_size > size:
        raise _MalformedError


def _read_exactly(file: BinaryIO, offset: int, count: int) -> bytes:
    file.seek(offset)
    data = file.read(count)
    if len(data) != count:
        raise _MalformedError
    return data


def _vint_length(first: int) -> int:
    for length in range(1, 9):
        if first & (0x80 >> (length - 1)):
            return length
    raise _MalformedError


def _read_id(file: BinaryIO, offset: int) -> tuple[int, int]:
    """An EBML element ID keeps its length marker bits, as the specification writes IDs."""
    length = _vint_length(_read_exactly(file, offset, 1)[0])
    return int.from_bytes(_read_exactly(file, offset, length), "big"), offset + length


def _read_size(file: BinaryIO, offset: int) -> tuple[int | None, int]:
    """An EBML data size with its marker removed; ``None`` when it is the "unknown" value."""
    raw = _read_exactly(file, offset, 1)[0]
    length = _vint_length(raw)
    value = int.from_bytes(_read_exactly(file, offset, length), "big")
    value &= (1 << (7 * length)) - 1
    unknown = value == (1 << (7 * length)) - 1
    return (None if unknown else value), offset + length
