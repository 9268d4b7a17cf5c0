"""Generators for hostile files that hide content from a scanner: secrets where a naive scan
does not look, archives where it does not expect them, animations that cost more than they
seem. Built at test time; fake secrets come from ``corpus.fake_secrets``.
"""

from __future__ import annotations

import io
import random
import struct
import zipfile
import zlib

from PIL import Image

from tests.unit.safety.corpus import fake_secrets, zip_bytes

_TAGS_ID = b"\x12\x54\xc3\x67"
_VOID_ID = b"\xec"
_CLUSTER_ID = b"\x1f\x43\xb6\x75"


def secret(code: str = "anthropic_api_key") -> str:
    return fake_secrets()[code]


def hidden_secret_entries() -> dict[str, bytes]:
    """Entry contents that each hide a secret from a scan of "text-looking" UTF-8 only."""
    key = secret()
    line = f"$key = '{key}'\r\n"
    split = "\u200b".join(key[i : i + 5] for i in range(0, len(key), 5))
    return {
        "nul_head": b"\x00\x01\x02binary-looking head\n" + key.encode() + b"\n",
        "binary_body": random.Random(1).randbytes(20_000) + b"\n" + key.encode() + b"\n",
        "utf16le_bom": line.encode("utf-16"),  # what Windows PowerShell's Out-File writes
        "utf16le": line.encode("utf-16-le"),
        "utf16be_bom": b"\xfe\xff" + line.encode("utf-16-be"),
        "utf16be": line.encode("utf-16-be"),
        "utf16_odd_offset": b"\x00" + line.encode("utf-16-le"),
        "utf16_zero_width": f"$key = '{split}'\r\n".encode("utf-16"),
        "nul_interleaved": b"\x00\x00".join(bytes([char]) for char in key.encode()),
    }


def zip_with_comments(entry_comment: bytes = b"", archive_comment: bytes = b"") -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        info = zipfile.ZipInfo("a.txt")
        info.comment = entry_comment
        archive.writestr(info, b"fine\n")
        archive.comment = archive_comment
    return out.getvalue()


def extra_field(field_id: int, data: bytes) -> bytes:
    return struct.pack("<HH", field_id, len(data)) + data


def unicode_path_field(header_name: str, unicode_name: str) -> bytes:
    """Info-ZIP's Unicode Path field: version 1, the CRC of the header name, a UTF-8 name."""
    crc = zlib.crc32(header_name.encode()) & 0xFFFFFFFF
    return extra_field(0x7075, b"\x01" + struct.pack("<I", crc) + unicode_name.encode())


def zip_with_extra(name: str, extra: bytes, *, local_only: bool = False) -> bytes:
    info = zipfile.ZipInfo(name)
    info.extra = extra
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(info, b"fine\n")
    data = out.getvalue()
    if not local_only:
        return data
    # Blank the central directory's copy; the local header keeps the original.
    central = data.index(b"PK\x01\x02")
    blank = extra_field(0xCAFE, b"x" * (len(extra) - 4))
    return data[:central] + data[central:].replace(extra, blank, 1)


def zip_with_local_name(central_name: str, local_name: str) -> bytes:
    """An entry whose local header names it differently from the central directory."""
    assert len(central_name) == len(local_name)
    data = zip_bytes({central_name: b"fine\n"})
    return data.replace(central_name.encode(), local_name.encode(), 1)


def embedded_streams() -> dict[str, bytes]:
    """An archive or compressed stream after some ordinary bytes, never at offset 0."""
    import bz2
    import gzip
    import lzma

    payload = f"KEY={secret()}\n".encode() * 20
    padding = b"# just a header line\n" * 3
    return {
        "gzip": padding + gzip.compress(payload),
        "bzip2": padding + bz2.compress(payload),
        "xz": padding + lzma.compress(payload),
        "zip": padding + zip_bytes({"inner.txt": payload}),
        "zstd": padding + b"\x28\xb5\x2f\xfd\x24\x00" + random.Random(2).randbytes(64),
        "7z": padding + b"7z\xbc\xaf\x27\x1c\x00\x04" + random.Random(3).randbytes(64),
        "rar": padding + b"Rar!\x1a\x07\x01\x00" + random.Random(4).randbytes(64),
        # Straddling the 1 MiB read chunk: a scan of each chunk alone would miss it.
        "gzip_across_chunks": b"a" * (1024 * 1024 - 5) + gzip.compress(payload),
    }


def box(kind: bytes, payload: bytes = b"") -> bytes:
    return (8 + len(payload)).to_bytes(4, "big") + kind + payload


def mp4_comment(text: bytes) -> bytes:
    """A ``©cmt`` item as iTunes-style metadata stores it: in a ``data`` box with a type."""
    return box(b"\xa9cmt", box(b"data", b"\x00\x00\x00\x01\x00\x00\x00\x00" + text))


def mp4(*extra_boxes: bytes, udta: bytes = b"", mdat: bytes = b"\x00" * 64) -> bytes:
    moov_payload = box(b"mvhd", b"\x00" * 100) + (box(b"udta", udta) if udta else b"")
    return (
        box(b"ftyp", b"isom\x00\x00\x02\x00isomavc1")
        + box(b"moov", moov_payload)
        + b"".join(extra_boxes)
        + box(b"mdat", mdat)
    )


def ebml(element_id: bytes, payload: bytes) -> bytes:
    """An element with the shortest size field, as muxers write it (up to 16 KiB)."""
    size = len(payload)
    if size < 0x7F:
        return element_id + bytes([0x80 | size]) + payload
    return element_id + bytes([0x40 | (size >> 8), size & 0xFF]) + payload


def webm(*elements: bytes) -> bytes:
    doctype = b"\x42\x82\x84webm"
    header = b"\x1a\x45\xdf\xa3" + bytes([0x80 | len(doctype)]) + doctype
    body = b"".join(elements) or ebml(_VOID_ID, b"\x00" * 8)
    return header + ebml(b"\x18\x53\x80\x67", body)


def webm_tags(text: bytes) -> bytes:
    return ebml(_TAGS_ID, ebml(b"\x73\x73", ebml(b"\x67\xc8", ebml(b"\x44\x87", text))))


def webm_void(data: bytes) -> bytes:
    return ebml(_VOID_ID, data)


def webm_cluster(data: bytes) -> bytes:
    return ebml(_CLUSTER_ID, ebml(b"\xa3", data))


def jpeg_cut_and_closed(*, progressive: bool = False) -> bytes:
    """A JPEG cut in the middle of its image data and closed with an end-of-image marker."""
    out = io.BytesIO()
    Image.effect_noise((256, 256), 80).convert("RGB").save(
        out, format="JPEG", progressive=progressive
    )
    data = out.getvalue()
    return data[: len(data) // 2] + b"\xff\xd9"


def gif_with_frames(count: int, size: tuple[int, int] = (1, 1)) -> bytes:
    """A valid GIF of ``count`` frames, written directly (Pillow merges identical frames).

    Each frame is one LZW-coded pixel drawn at the top-left corner of the canvas.
    """
    width, height = size
    screen = (
        b"GIF89a" + struct.pack("<HHBBB", width, height, 0x80, 0, 0) + b"\x00" * 3 + b"\xff" * 3
    )
    loop = b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"
    frame = (
        b"\x21\xf9\x04\x00\x0a\x00\x00\x00"  # graphic control: 100 ms
        + b"\x2c"
        + struct.pack("<HHHHB", 0, 0, 1, 1, 0)
        + b"\x02\x02\x44\x01\x00"  # code size 2; clear, pixel 0, end
    )
    return screen + loop + frame * count + b"\x3b"


def animation(image_format: str, count: int, size: tuple[int, int] = (8, 8)) -> bytes:
    """An animated WebP or PNG (APNG) of ``count`` distinct frames, through Pillow."""
    frames = [
        Image.new("RGB", size, (index * 37 % 256, index * 91 % 256, index * 53 % 256))
        for index in range(count)
    ]
    out = io.BytesIO()
    frames[0].save(
        out,
        format=image_format,
        save_all=True,
        append_images=frames[1:],
        duration=[50 + index for index in range(count)],
    )
    return out.getvalue()
