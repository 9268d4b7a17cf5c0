"""Video: the container's structure is walked (not decoded) so a truncated upload or a file
that merely starts with a video signature is caught.

MP4 is a chain of top-level boxes that must tile the file exactly and include the ``moov``
index players need; WebM is an EBML header followed by one Segment. Both walks read a few
bytes per box or element, so a 500 MiB video costs a handful of seeks.

Videos are served as uploaded, so a secret anywhere in one blocks it (stripping metadata by
remuxing would need a muxer for every layout we accept; blocking is simple and checkable).
Everything that is not media payload — every MP4 box but ``mdat`` (``moov`` with its
``udta``/``meta``, ``free``, ``skip``, ``uuid``, ...) and every WebM element outside a
Cluster (Info, Tags, Void, Attachments, ...) — is scanned in every readable view like a ZIP
entry. The payload itself holds no text, so it, like the whole file, is scanned for printable
runs: a key written there plainly is found at about a millisecond per megabyte.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

from benchmax.services.safety.readable import printable_runs, readable_texts
from benchmax.services.safety.result import BlockedError
from benchmax.services.safety.secrets import SecretFinding, find_secrets

_MAX_TOP_LEVEL_BOXES = 10_000
_MAX_SEGMENT_ELEMENTS = 100_000
_EBML_HEADER_ID = 0x1A45DFA3
_SEGMENT_ID = 0x18538067
_CLUSTER_ID = 0x1F43B675
_MEDIA_BOX = b"mdat"
# (offset, size) of a stretch of the file that is structure or metadata, not media.
_Span = tuple[int, int]


class MalformedError(Exception):
    pass


def check_video(path: Path, content_type: str, label: str) -> None:
    size = path.stat().st_size
    try:
        with path.open("rb") as file:
            if content_type == "video/mp4":
                metadata = _walk_mp4(file, size)
            else:
                metadata = _walk_webm(file, size)
            _check_no_secrets(file, metadata, label)
    except MalformedError:
        raise BlockedError(
            "video_corrupt",
            f"{label} is not a complete MP4 or WebM video: it may be truncated or damaged. "
            "Export it again and upload the new file.",
        ) from None


def _check_no_secrets(file: BinaryIO, metadata: list[_Span], label: str) -> None:
    found: list[SecretFinding] = []
    for offset, length in metadata:
        found.extend(readable_texts(read_exactly(file, offset, length)).secrets())
    if not found:
        file.seek(0)
        for run in printable_runs(file):
            found.extend(find_secrets(run))
    if found:
        # Line numbers inside a binary container mean nothing to the contributor.
        kind = found[0].kind
        article = "an" if kind[0].lower() in "aeiox" else "a"
        more = f" ({len(found) - 1} more found)" if len(found) > 1 else ""
        raise BlockedError(
            "secret_detected",
            f"{label} holds what looks like {article} {kind} in its metadata or data{more}. "
            "Remove it (export the video again without metadata) and try again — BenchMax "
            "never needs your model keys.",
            findings=[{"type": "secret", "code": hit.code, "kind": hit.kind} for hit in found],
        )


def _walk_mp4(file: BinaryIO, size: int) -> list[_Span]:
    offset, seen = 0, set()
    metadata: list[_Span] = []
    for _ in range(_MAX_TOP_LEVEL_BOXES):
        if offset == size:
            break
        header = read_exactly(file, offset, 8)
        box_size, box_type = int.from_bytes(header[:4], "big"), header[4:]
        if not (box_type.isascii() and box_type.isalnum()):
            raise MalformedError
        if box_size == 1:
            box_size = int.from_bytes(read_exactly(file, offset + 8, 8), "big")
        elif box_size == 0:
            box_size = size - offset
        if box_size < 8 or offset + box_size > size:
            raise MalformedError
        seen.add(box_type)
        if box_type != _MEDIA_BOX:
            # The payload alone: its box type must not run into text at its start.
            header_length = 16 if int.from_bytes(header[:4], "big") == 1 else 8
            metadata.append((offset + header_length, box_size - header_length))
        offset += box_size
    else:
        raise MalformedError
    if b"ftyp" not in seen or b"moov" not in seen:
        raise MalformedError
    return metadata


def _walk_webm(file: BinaryIO, size: int) -> list[_Span]:
    element_id, offset = read_ebml_id(file, 0)
    if element_id != _EBML_HEADER_ID:
        raise MalformedError
    header_size, offset = read_ebml_size(file, offset)
    if header_size is None:
        raise MalformedError
    segment_id, offset = read_ebml_id(file, offset + header_size)
    if segment_id != _SEGMENT_ID:
        raise MalformedError
    segment_size, offset = read_ebml_size(file, offset)
    # Live recordings (MediaRecorder) leave the Segment size "unknown"; that is valid.
    if segment_size is not None and offset + segment_size > size:
        raise MalformedError
    end = size if segment_size is None else offset + segment_size
    metadata: list[_Span] = [(0, offset)]
    for _ in range(_MAX_SEGMENT_ELEMENTS):
        if offset >= end:
            break
        start = offset
        element_id, offset = read_ebml_id(file, offset)
        element_size, offset = read_ebml_size(file, offset)
        if element_size is None or offset + element_size > end:
            # A live recording's Cluster of unknown size runs on to the next Cluster; the
            # rest of the file is covered by the printable-run scan.
            metadata.append((start, offset - start))
            break
        if element_id != _CLUSTER_ID:
            metadata.append((offset, element_size))
        offset += element_size
    return metadata


def read_exactly(file: BinaryIO, offset: int, count: int) -> bytes:
    file.seek(offset)
    data = file.read(count)
    if len(data) != count:
        raise MalformedError
    return data


def _vint_length(first: int) -> int:
    for length in range(1, 9):
        if first & (0x80 >> (length - 1)):
            return length
    raise MalformedError


def read_ebml_id(file: BinaryIO, offset: int) -> tuple[int, int]:
    """An EBML element ID keeps its length marker bits, as the specification writes IDs."""
    length = _vint_length(read_exactly(file, offset, 1)[0])
    return int.from_bytes(read_exactly(file, offset, length), "big"), offset + length


def read_ebml_size(file: BinaryIO, offset: int) -> tuple[int | None, int]:
    """An EBML data size with its marker removed; ``None`` when it is the "unknown" value."""
    raw = read_exactly(file, offset, 1)[0]
    length = _vint_length(raw)
    value = int.from_bytes(read_exactly(file, offset, length), "big")
    value &= (1 << (7 * length)) - 1
    unknown = value == (1 << (7 * length)) - 1
    return (None if unknown else value), offset + length
