"""Rebuilding a video's container with only what playback needs, and proving it.

Metadata a player never reads (WebM Tags, Void, attachments, chapters, unknown elements; MP4
``udta``/``meta``/``free``/``uuid`` boxes, chapter and data tracks, subtitles) can carry
anything, and stored bytes are served bytes. So every approved video is remuxed by Debian's
ffmpeg (streams copied, never re-encoded): the video streams that are not cover pictures
and the audio streams, no global or stream metadata, no chapters, data, subtitle or
attachment streams, ``bitexact`` so no muxer version is written either.

A remux is only as good as the muxer's defaults, so the result is then walked element by
element (box by box) against an allow-list of what ffmpeg's muxer writes for playback:
every element's ID must be one its parent may hold, the strings among them must read as what
they are (a codec id, a language code, a muxer name), Void must be zeros, and the only tags
allowed are the track durations the WebM muxer writes. Anything else and the file is
refused: nothing unproven is stored. What the media payload itself holds (a key written
plainly into the bitstream) is found by the printable-run scan in ``video.py``.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from benchmax.services.safety.result import BlockedError
from benchmax.services.safety.video import (
    MalformedError,
    read_ebml_id,
    read_ebml_size,
    read_exactly,
)

_FFMPEG = "/usr/bin/ffmpeg"
_MAX_ELEMENTS = 2_000_000
_Check = Callable[[bytes], bool]


def _text(pattern: str) -> _Check:
    compiled = re.compile(pattern.encode())
    return lambda value: compiled.fullmatch(value.rstrip(b"\x00")) is not None


def _any(_value: bytes) -> bool:
    return True


def _zeros(value: bytes) -> bool:
    return not value.strip(b"\x00")


_MASTER = "master"
_CODEC_ID = _text(r"[AV]_[A-Z0-9/_.]{1,30}")
_LANGUAGE = _text(r"[a-z]{2,3}(?:-[A-Za-z0-9]{1,8}){0,3}")
_MUXER = _text(r"Lavf[0-9.]*")
# EBML IDs (with their length marker, as the Matroska specification writes them), by parent:
# each child is a master element (walked in turn) or a check of its value.
_WEBM: dict[int, dict[int, str | _Check]] = {
    0x1A45DFA3: {  # EBML header
        0x4286: _any, 0x42F7: _any, 0x42F2: _any, 0x42F3: _any,
        0x4282: _text(r"webm|matroska"), 0x4287: _any, 0x4285: _any, 0xEC: _zeros,
    },
    0x18538067: {  # Segment
        0x114D9B74: _MASTER, 0x1549A966: _MASTER, 0x1654AE6B: _MASTER, 0x1F43B675: _MASTER,
        0x1C53BB6B: _MASTER, 0x1254C367: _MASTER, 0xEC: _zeros,
    },
    0x114D9B74: {0x4DBB: _MASTER, 0xEC: _zeros},  # SeekHead
    0x4DBB: {0x53AB: _any, 0x53AC: _any},  # Seek: SeekID, SeekPosition
    0x1549A966: {  # Info
        0x2AD7B1: _any, 0x4489: _any, 0x4D80: _MUXER, 0x5741: _MUXER, 0x73A4: _any, 0xEC: _zeros,
    },
    0x1654AE6B: {0xAE: _MASTER, 0xEC: _zeros},  # Tracks
    0xAE: {  # TrackEntry
        0xD7: _any, 0x73C5: _any, 0x9C: _any, 0x22B59C: _LANGUAGE, 0x22B59D: _LANGUAGE,
        0x86: _CODEC_ID, 0x63A2: _any, 0x83: _any, 0x23E383: _any, 0xE0: _MASTER,
        0xE1: _MASTER, 0x56AA: _any, 0x56BB: _any, 0x88: _any, 0x55AA: _any, 0xB9: _any,
        0x6DE7: _any, 0x55EE: _any, 0x234E7A: _any, 0xEC: _zeros,
    },
    0xE0: {  # Video
        0xB0: _any, 0xBA: _any, 0x54B0: _any, 0x54BA: _any, 0x54B2: _any, 0x9A: _any,
        0x9D: _any, 0x53B8: _any, 0x53C0: _any, 0x54AA: _any, 0x54BB: _any, 0x54CC: _any,
        0x54DD: _any, 0x55B0: _MASTER,
    },
    0x55B0: {  # Colour, and its MasteringMetadata: numbers only
        **dict.fromkeys(range(21937, 21950), _any), 0x55D0: _MASTER,
    },
    0x55D0: dict.fromkeys(range(21969, 21979), _any),
    0xE1: {0xB5: _any, 0x78B5: _any, 0x9F: _any, 0x6264: _any},  # Audio
    0x1F43B675: {  # Cluster
        0xE7: _any, 0xA3: _any, 0xA0: _MASTER, 0xA7: _any, 0xAB: _any, 0xEC: _zeros,
    },
    0xA0: {0xA1: _any, 0x9B: _any, 0xFB: _any, 0x75A2: _any},  # BlockGroup
    0x1C53BB6B: {0xBB: _MASTER, 0xEC: _zeros},  # Cues
    0xBB: {0xB3: _any, 0xB7: _MASTER},  # CuePoint
    0xB7: {0xF7: _any, 0xF1: _any, 0xF0: _any, 0xB2: _any, 0x5378: _any},
    # Tags: only the per-track DURATION the WebM muxer writes.
    0x1254C367: {0x7373: _MASTER, 0xEC: _zeros},
    0x7373: {0x63C0: _MASTER, 0x67C8: _MASTER},
    0x63C0: {0x63C5: _any, 0x68CA: _any, 0x63CA: _text(r"[A-Z]{0,16}")},
    0x67C8: {
        0x45A3: _text(r"DURATION"),
        0x4487: _text(r"[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{1,9}"),
        0x447A: _LANGUAGE,
        0x4484: _any,
    },
}  # fmt: skip
# MP4 boxes by parent ("" for the top level), with the same meaning.
_HANDLER = re.compile(rb"\x00{8}(?:vide|soun)\x00{12}(?:VideoHandler|SoundHandler)?\x00")
_EMPTY_ILST = (
    b"\x00\x00\x00\x35meta\x00\x00\x00\x00\x00\x00\x00\x21hdlr\x00\x00\x00\x00\x00\x00\x00\x00"
    b"mdirappl" + b"\x00" * 9 + b"\x00\x00\x00\x08ilst"
)
_SELF_CONTAINED = b"\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x0curl \x00\x00\x00\x01"
_MP4: dict[bytes, dict[bytes, str | _Check]] = {
    b"": {
        b"ftyp": _text(r"[a-z0-9 ]{4}[\x00-\xff]{4}(?:[a-z0-9 ]{4})*"),
        b"free": _zeros, b"mdat": _any, b"moov": _MASTER,
    },
    b"moov": {b"mvhd": _any, b"trak": _MASTER, b"udta": lambda value: value == _EMPTY_ILST},
    b"trak": {b"tkhd": _any, b"edts": _MASTER, b"mdia": _MASTER},
    b"edts": {b"elst": _any},
    b"mdia": {
        b"mdhd": _any, b"hdlr": lambda value: _HANDLER.fullmatch(value) is not None,
        b"minf": _MASTER,
    },
    b"minf": {b"vmhd": _any, b"smhd": _any, b"dinf": _MASTER, b"stbl": _MASTER},
    b"dinf": {b"dref": lambda value: value == _SELF_CONTAINED},
    b"stbl": dict.fromkeys(
        (b"stsd", b"stts", b"stss", b"ctts", b"stsc", b"stsz", b"stz2", b"stco", b"co64",
         b"sgpd", b"sbgp", b"sdtp", b"cslg", b"stps"),
        _any,
    ),
}  # fmt: skip
_VALUE_LIMIT = 64 * 1024  # bytes of a value read for its check (the rest only if needed)


class _NotCleanError(Exception):
    pass


def rebuild_video(path: Path, content_type: str, label: str) -> Path:
    """A copy of ``path`` with only playback's elements, beside it; ``BlockedError`` if the
    copy cannot be made or proven clean."""
    webm = content_type == "video/webm"
    output = path.with_name(f"{path.name}.rebuilt.{'webm' if webm else 'mp4'}")
    command = [
        _FFMPEG, "-nostdin", "-hide_banner", "-loglevel", "error", "-threads", "1",
        "-i", str(path),
        "-map", "0:V", "-map", "0:a?", "-map_metadata", "-1", "-map_chapters", "-1",
        "-dn", "-sn", "-c", "copy",
        "-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact",
        "-f", "webm" if webm else "mp4", "-y", str(output),
    ]  # fmt: skip
    completed = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, check=False)
    if completed.returncode != 0 or not output.exists() or not holds_only_playback(output, webm):
        output.unlink(missing_ok=True)
        raise BlockedError(
            "video_not_rebuildable",
            f"{label} could not be rebuilt with only its video and sound: export it again "
            "as a plain MP4 (H.264) or WebM (VP8/VP9/AV1) and upload the new file.",
        )
    return output


def holds_only_playback(path: Path, webm: bool) -> bool:
    """Whether every element (box) of ``path`` is on the allow-list, with a valid value."""
    try:
        with path.open("rb") as file:
            size = path.stat().st_size
            if webm:
                _verify_webm(file, size)
            else:
                _verify_mp4(file, 0, size, b"", [0])
    except (_NotCleanError, MalformedError):
        return False
    return True


def _verify_webm(file: BinaryIO, size: int) -> None:
    counter = [0]
    offset = 0
    for expected in (0x1A45DFA3, 0x18538067):
        element_id, data = read_ebml_id(file, offset)
        length, data = read_ebml_size(file, data)
        if element_id != expected or length is None or data + length > size:
            raise _NotCleanError
        _verify_ebml_children(file, element_id, data, data + length, counter)
        offset = data + length
    if offset != size:
        raise _NotCleanError


def _verify_ebml_children(
    file: BinaryIO, parent: int, offset: int, end: int, counter: list[int]
) -> None:
    allowed = _WEBM[parent]
    while offset < end:
        counter[0] += 1
        if counter[0] > _MAX_ELEMENTS:
            raise _NotCleanError
        element_id, data = read_ebml_id(file, offset)
        length, data = read_ebml_size(file, data)
        rule = allowed.get(element_id)
        if rule is None or length is None or data + length > end:
            raise _NotCleanError
        if rule == _MASTER:
            _verify_ebml_children(file, element_id, data, data + length, counter)
        elif rule is not _any and not _checked(file, data, length, rule):
            raise _NotCleanError
        offset = data + length
    if offset != end:
        raise _NotCleanError


def _verify_mp4(file: BinaryIO, offset: int, end: int, parent: bytes, counter: list[int]) -> None:
    allowed = _MP4[parent]
    while offset < end:
        counter[0] += 1
        if counter[0] > _MAX_ELEMENTS:
            raise _NotCleanError
        header = read_exactly(file, offset, 8)
        size, kind = int.from_bytes(header[:4], "big"), header[4:]
        start = offset + 8
        if size == 1:
            size = int.from_bytes(read_exactly(file, start, 8), "big")
            start += 8
        rule = allowed.get(kind)
        if rule is None or size < start - offset or offset + size > end:
            raise _NotCleanError
        if rule == _MASTER:
            _verify_mp4(file, start, offset + size, kind, counter)
        elif rule is not _any and not _checked(file, start, offset + size - start, rule):
            raise _NotCleanError
        offset += size


def _checked(file: BinaryIO, offset: int, length: int, rule: str | _Check) -> bool:
    if length > _VALUE_LIMIT or isinstance(rule, str):
        return False
    return rule(read_exactly(file, offset, length))
