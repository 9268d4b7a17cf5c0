"""Generators for the bad-input corpus (and the good files beside it).

Nothing here is checked in as binary: every file is built at test time. Fake secrets are
assembled from pieces so this source never contains a literal that a scanner would flag.
"""

from __future__ import annotations

import io
import json
import random
import secrets
import string
import struct
import zipfile
import zlib
from pathlib import Path

from PIL import Image

_ALPHANUMERIC = string.ascii_letters + string.digits


def token(length: int, seed: int = 0, alphabet: str = _ALPHANUMERIC) -> str:
    """A random-looking token with letters of both cases and digits, like a real key."""
    rng = random.Random(seed)
    body = [rng.choice(alphabet) for _ in range(length)]
    if alphabet is _ALPHANUMERIC and length >= 3:
        body[:3] = ["Q", "q", "7"]
        rng.shuffle(body)
    return "".join(body)


def fake_secrets() -> dict[str, str]:
    """One fake credential per rule, keyed by the finding code it must produce."""
    return {
        "anthropic_api_key": "sk-" + "ant-" + "api03-" + token(93, 1) + "AA",
        "openai_api_key": "sk-" + "proj-" + token(156, 2),
        "openrouter_api_key": "sk-" + "or-v1-" + token(64, 3, "0123456789abcdef"),
        "google_api_key": "AI" + "za" + token(35, 4),
        "aws_access_key_id": "AK" + "IA" + token(16, 5, string.ascii_uppercase + "234567"),
        "aws_secret_access_key": "aws_secret_access_key = " + token(40, 6),
        "github_token": "gh" + "p_" + token(36, 7),
        "huggingface_token": "h" + "f_" + token(34, 8),
        "groq_api_key": "gs" + "k_" + token(52, 9),
        "xai_api_key": "x" + "ai-" + token(80, 10),
        "mistral_api_key": "MISTRAL_API_KEY=" + token(32, 11),
        "keyword_secret": 'api_key = "' + token(40, 12) + '"',
        "private_key": (
            "-----BEGIN "
            + "RSA PRIVATE KEY-----\n"
            + token(64, 13)
            + "\n-----END RSA PRIVATE KEY-----"
        ),
        "google_service_account": json.dumps(
            {
                "type": "service" + "_account",
                "project_id": "demo",
                "private_key_id": "0" * 8,
                "private" + "_key": "not a real key",
                "client_email": "bot@example.invalid",
            }
        ),
    }


def canary_key() -> str:
    """A fresh fake Anthropic key for one run: realistic enough for every rule, never reused,
    so finding it anywhere after a test means that run stored or logged it."""
    return "sk-" + "ant-" + "api03-" + secrets.token_urlsafe(72)[:93] + "AA"


def canary_fragment(key: str) -> str:
    """The part of a ``canary_key`` that survives any cut a form makes (80 characters)."""
    return key[13:45]


def canary_access_key_id() -> str:
    """A fresh fake AWS access key ID: short enough for a handle (at most 32 characters)."""
    # Sixteen different characters: a random draw repeats enough now and then (about one in
    # 250) to fall under the rule's entropy floor, which would make the canary flaky.
    alphabet = string.ascii_uppercase + "234567"
    return "AK" + "IA" + "".join(secrets.SystemRandom().sample(alphabet, 16))


def png_bytes(size: tuple[int, int] = (64, 48), mode: str = "RGB", **save: object) -> bytes:
    image = Image.new(mode, size)
    image.putdata(
        [
            ((x * 7) % 256, (y * 5) % 256, 90)[: len(mode)]
            for y in range(size[1])
            for x in range(size[0])
        ]
    )
    out = io.BytesIO()
    image.save(out, format="PNG", **save)
    return out.getvalue()


def jpeg_with_gps(size: tuple[int, int] = (80, 60)) -> bytes:
    image = Image.new("RGB", size, (200, 120, 40))
    exif = Image.Exif()
    exif[0x010F] = "FakeCam"  # Make
    exif[0x0112] = 6  # Orientation: rotate 90 degrees on display
    exif.get_ifd(0x8825)[2] = (51.0, 30.0, 0.0)  # GPSLatitude
    out = io.BytesIO()
    image.save(out, format="JPEG", exif=exif, comment=b"camera note")
    return out.getvalue()


def png_claiming_dimensions(width: int, height: int) -> bytes:
    """A valid PNG signature and IHDR with huge dimensions, followed by almost nothing."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 64))
        + chunk(b"IEND", b"")
    )


def zip_bytes(entries: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return out.getvalue()


def zip_with_info(info: zipfile.ZipInfo, data: bytes = b"content") -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(info, data)
    return out.getvalue()


def zip_with_encrypted_entry() -> bytes:
    """``zipfile`` resets flag bits when writing, so the encryption bit is set in the bytes."""
    data = bytearray(zip_bytes({"secret.txt": b"content"}))
    for signature, flags_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.index(signature) + flags_at
        data[at] |= 0x1
    return bytes(data)


def zip_with_overlapping_entries() -> bytes:
    """Two central-directory entries pointing at the same local header and data."""
    original = zip_bytes({"a.txt": b"x" * 1000})
    archive = zipfile.ZipFile(io.BytesIO(original))
    info = archive.infolist()[0]
    central_at = original.index(b"PK\x01\x02")
    end_at = original.index(b"PK\x05\x06")
    central = original[central_at:end_at]
    end = bytearray(original[end_at:])
    struct.pack_into("<HHI", end, 8, 2, 2, len(central) * 2)
    assert info.header_offset == 0
    # Same length, different name: only the shared offset is wrong.
    twin = central.replace(b"a.txt", b"b.txt")
    return original[:central_at] + central + twin + bytes(end)


def write(directory: Path, name: str, data: bytes) -> Path:
    path = directory / name
    path.write_bytes(data)
    return path
