import pytest

from benchmax.services.safety import sniff_kind
from tests.unit.safety.corpus import png_bytes, zip_bytes


def _mp4_head(major: bytes, *compatible: bytes) -> bytes:
    body = major + b"\x00\x00\x02\x00" + b"".join(compatible)
    return (8 + len(body)).to_bytes(4, "big") + b"ftyp" + body


def _webm_head(doctype: bytes) -> bytes:
    element = b"\x42\x82" + bytes([0x80 | len(doctype)]) + doctype
    return b"\x1a\x45\xdf\xa3" + bytes([0x80 | len(element)]) + element


@pytest.mark.parametrize(
    ("head", "name", "expected"),
    [
        (png_bytes(), "x.bin", ("image", "image/png")),
        (b"\xff\xd8\xff\xe0rest", "x", ("image", "image/jpeg")),
        (b"GIF89a....", "x", ("image", "image/gif")),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "x", ("image", "image/webp")),
        (_mp4_head(b"isom", b"isom", b"avc1"), "x", ("video", "video/mp4")),
        (_mp4_head(b"XYZW", b"mp42"), "x", ("video", "video/mp4")),
        (_mp4_head(b"heic", b"mif1", b"heic"), "x.mp4", (None, "video/x-unsupported")),
        (_mp4_head(b"qt  ", b"qt  "), "x.mov", (None, "video/x-unsupported")),
        (_webm_head(b"webm"), "x", ("video", "video/webm")),
        (_webm_head(b"matroska"), "x.webm", (None, "video/x-unsupported")),
        (zip_bytes({"a.txt": b"a"}), "x", ("source", "application/zip")),
        (b"\x1f\x8b\x08\x00", "x.zip", (None, "application/x-archive")),
        (b"plain words\n", "notes.txt", ("text", "text/plain; charset=utf-8")),
        (b"# Title\n", "README.md", ("text", "text/markdown; charset=utf-8")),
        (b'{"a": 1}', "data.json", ("text", "application/json")),
        (b'{"a": 1}\n', "rows.jsonl", ("text", "application/x-ndjson")),
        (b"\xef\xbb\xbf<!DOCTYPE html><p>hi", "page.txt", (None, "text/html")),
        (b"  <script>alert(1)</script>", "a.md", (None, "text/html")),
        (b"<svg xmlns='http://www.w3.org/2000/svg'/>", "a.txt", (None, "image/svg+xml")),
        (b'<?xml version="1.0"?>\n<svg/>', "a.png", (None, "image/svg+xml")),
        (b"<b>bold</b> opens like an HTML page", "a.txt", (None, "text/html")),
        (b"<bold is not a tag", "a.txt", ("text", "text/plain; charset=utf-8")),
        (b"%PDF-1.7\x00\x01\x02", "a.pdf", (None, "application/octet-stream")),
        (bytes(range(256)), "a.png", (None, "application/octet-stream")),
    ],
)
def test_sniff_uses_the_bytes(head: bytes, name: str, expected: tuple[str | None, str]) -> None:
    assert sniff_kind(head, name) == expected


def test_name_never_accepts_refused_bytes() -> None:
    assert sniff_kind(b"\x00\x01binary", "notes.txt")[0] is None
