"""Archives and compressed streams hidden anywhere inside bytes, not only at their start.

A ZIP entry that holds a gzip stream after a few bytes of padding is as much a nested archive
as one that starts with it: whatever is compressed inside was never scanned. Every signature
here has a byte that ordinary text never contains (a control byte, or 0xFD, which UTF-8 never
uses); a C-speed ``in`` on that byte rules a signature out for a whole text entry at once, so
text costs a few memchr passes. bzip2's signature is all ASCII, but the stream behind it is
not, so it is looked for only in bytes that are not pure ASCII.
In binary entries a signature can occur by chance, so the short ones are confirmed: a gzip
header must be followed by a deflate stream that inflates without error.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass

from benchmax.services.safety.sniff import ARCHIVE_MAGIC

# Inflating this much after a candidate gzip header tells a real stream from chance bytes.
_GZIP_PROBE = 1024
_TAR_MAGIC_OFFSET = 257


def _gzip_inflates(data: bytes, at: int) -> bool:
    if data[at + 3] & 0xE0:  # reserved flag bits must be clear
        return False
    try:
        zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data[at : at + _GZIP_PROBE], 4096)
    except zlib.error:
        return False
    return True


def _zip_header(data: bytes, at: int) -> bool:
    # "Version needed to extract" is a small number in every real local header.
    return data[at + 5] == 0 and data[at + 4] < 100


def _end_record(data: bytes, at: int) -> bool:
    return data[at + 4 : at + 8] == b"\x00\x00\x00\x00"  # disk numbers: a single-disk archive


def _bzip2_stream(data: bytes, at: int) -> bool:
    # The block magic follows "BZh" and a block-size digit.
    return at >= 4 and data[at - 4 : at - 1] == b"BZh" and 0x31 <= data[at - 1] <= 0x39


def _zstd_frame(data: bytes, at: int) -> bool:
    return not data[at + 4] & 0x08  # the frame header's reserved bit


@dataclass(frozen=True, slots=True)
class _Signature:
    magic: bytes
    # Checked with ``in`` first; absent means the magic cannot be there. None: the stream
    # behind the magic cannot be pure ASCII.
    rare: bytes | None
    # Bytes needed after the magic's start for ``confirm`` to look at.
    length: int = 0
    confirm: Callable[[bytes, int], bool] | None = None


_SIGNATURES = (
    _Signature(b"PK\x03\x04", b"\x03", 6, _zip_header),
    _Signature(b"PK\x05\x06", b"\x05", 8, _end_record),
    _Signature(b"\x1f\x8b\x08", b"\x1f", 4, _gzip_inflates),
    _Signature(b"1AY&SY", None, 0, _bzip2_stream),
    _Signature(b"\xfd7zXZ\x00", b"\xfd"),
    _Signature(b"\x28\xb5\x2f\xfd", b"\xfd", 5, _zstd_frame),
    _Signature(b"7z\xbc\xaf\x27\x1c", b"\x1c"),
    _Signature(b"Rar!\x1a\x07", b"\x1a"),
    _Signature(b"MSCF\x00\x00\x00\x00", b"\x00"),
)


def holds_archive(data: bytes) -> bool:
    """Whether ``data`` is an archive (by its first bytes, as a file is sniffed) or holds an
    archive or compressed stream anywhere."""
    if data.startswith(ARCHIVE_MAGIC) or data[_TAR_MAGIC_OFFSET:].startswith(b"ustar"):
        return True
    ascii_only = data.isascii()
    for signature in _SIGNATURES:
        if ascii_only if signature.rare is None else signature.rare not in data:
            continue
        at = data.find(signature.magic)
        while at >= 0:
            if _confirmed(signature, data, at):
                return True
            at = data.find(signature.magic, at + 1)
    return False


def _confirmed(signature: _Signature, data: bytes, at: int) -> bool:
    if signature.confirm is None:
        return True
    return len(data) >= at + signature.length and signature.confirm(data, at)
