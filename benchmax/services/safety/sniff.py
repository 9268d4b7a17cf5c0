"""Deciding what a file is from its first bytes, never from its name or the client's header.

The name is consulted only to pick a text sub-type (Markdown, JSON, NDJSON) for bytes that are
already text; it can never turn refused bytes into accepted ones. HTML and SVG are recognised
so they can be refused by name: served from any origin they would run script.
"""

from __future__ import annotations

from benchmax.file_types import text_content_types
from benchmax.services.safety.result import Kind

HEAD_BYTES = 8192

TEXT_PLAIN = "text/plain; charset=utf-8"
HTML = "text/html"
SVG = "image/svg+xml"
OCTET_STREAM = "application/octet-stream"
OTHER_ARCHIVE = "application/x-archive"
OTHER_VIDEO = "video/x-unsupported"

_IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)
ARCHIVE_MAGIC = (
    b"PK\x03\x04",
    b"PK\x05\x06",
    b"PK\x07\x08",
    b"\x1f\x8b",
    b"BZh",
    b"\xfd7zXZ\x00",
    b"7z\xbc\xaf\x27\x1c",
    b"Rar!\x1a\x07",
    b"\x28\xb5\x2f\xfd",
    b"MSCF",
)
_TAR_MAGIC_OFFSET = 257
# Brands of plain MP4 video. HEIC and AVIF images share the ftyp box and must not pass.
_MP4_BRANDS = frozenset(
    {b"isom", b"iso2", b"iso4", b"iso5", b"iso6", b"mp41", b"mp42", b"avc1", b"dash", b"M4V "}
)
# Still images and QuickTime that also start with an ftyp box listing MP4 brands.
_NOT_MP4_BRANDS = frozenset({b"heic", b"heix", b"mif1", b"msf1", b"avif", b"avis", b"qt  "})
_EBML_MAGIC = b"\x1a\x45\xdf\xa3"
_EBML_DOCTYPE_ID = b"\x42\x82"
_TEXT_SUBTYPES = text_content_types()
_TEXT_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")
# The WHATWG MIME-sniffing table: what a browser would render as HTML if it guessed.
_HTML_OPENERS = tuple(
    f"<{tag}".encode()
    for tag in (
        "!doctype html", "html", "head", "script", "iframe", "h1", "div", "font", "table",
        "a", "style", "title", "b", "body", "br", "p", "!--",
    )
)  # fmt: skip
_TAG_END = b" >\t\n\r\x0c"
_ALLOWED_CONTROL = frozenset(b"\t\n\r\x0c\x0b\x08\x1b")


def sniff_kind(head: bytes, name: str) -> tuple[Kind | None, str]:
    """Return ``(kind, content_type)``; kind ``None`` means refused, and the content type
    then says what was recognised so the refusal can be explained."""
    for magic, content_type in _IMAGE_MAGIC:
        if head.startswith(magic):
            return "image", content_type
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image", "image/webp"
    if head[4:8] == b"ftyp":
        return _sniff_iso_media(head)
    if head.startswith(_EBML_MAGIC):
        return ("video", "video/webm") if _ebml_doctype(head) == b"webm" else (None, OTHER_VIDEO)
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        return "source", "application/zip"
    if head.startswith(ARCHIVE_MAGIC) or head[_TAR_MAGIC_OFFSET:].startswith(b"ustar"):
        return None, OTHER_ARCHIVE
    if not _looks_like_text(head):
        return None, OCTET_STREAM
    markup = _markup_type(head)
    if markup:
        return None, markup
    extension = name.rpartition(".")[2].lower() if "." in name else ""
    return "text", _TEXT_SUBTYPES.get(extension, TEXT_PLAIN)


def _sniff_iso_media(head: bytes) -> tuple[Kind | None, str]:
    major = head[8:12]
    if major in _NOT_MP4_BRANDS:
        return None, OTHER_VIDEO
    box_end = min(int.from_bytes(head[:4], "big"), len(head))
    compatible = {head[offset : offset + 4] for offset in range(16, box_end - 3, 4)}
    if major in _MP4_BRANDS or compatible & _MP4_BRANDS:
        return "video", "video/mp4"
    return None, OTHER_VIDEO


def _ebml_doctype(head: bytes) -> bytes:
    """The DocType string of an EBML header (``webm`` or ``matroska``), or b"" if absent.

    A full EBML parser is not needed: the DocType element sits in the first few dozen bytes
    and its one-byte size is always small.
    """
    at = head.find(_EBML_DOCTYPE_ID, 4, 64)
    if at < 0 or at + 3 > len(head):
        return b""
    size_byte = head[at + 2]
    if not size_byte & 0x80:
        return b""
    size = size_byte & 0x7F
    return head[at + 3 : at + 3 + size]


def _looks_like_text(head: bytes) -> bool:
    if head.startswith(_TEXT_BOMS):
        return True
    if b"\x00" in head:
        return False
    controls = sum(1 for byte in head[:1024] if byte < 0x20 and byte not in _ALLOWED_CONTROL)
    return controls * 100 <= len(head[:1024])


def _markup_type(head: bytes) -> str | None:
    start = head.removeprefix(b"\xef\xbb\xbf").lstrip()[:1024].lower()
    if start.startswith(b"<svg") or start.startswith(b"<!doctype svg"):
        return SVG
    if start.startswith(b"<?xml"):
        if b"<svg" in start:
            return SVG
        return HTML if b"<html" in start else None
    for opener in _HTML_OPENERS:
        # An empty slice (the tag ends the head) is "in" any bytes, which is what we want.
        if start.startswith(opener) and start[len(opener) : len(opener) + 1] in _TAG_END:
            return HTML
    return None
