"""Property-based fuzzing of the scanner: for ZIPs, images, videos and text with random
structure (and random damage), ``scan_file`` returns a verdict, within its CPU budget, and
never raises.

An exception here would be "Processing failed" in production: a file the scanner cannot
judge, retried until it is dead-lettered. Examples are bounded so the module stays well
under a minute; ``derandomize`` keeps CI reproducible, and no example database is written.
"""

from __future__ import annotations

import io
import struct
import time
import zipfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from benchmax.services.safety import SafetyLimits, ScanResult, scan_file
from tests.unit.safety import hostile

# The production CPU budget; a fuzz input is tiny, so anything near it is a hang.
CPU_BUDGET_SECONDS = 20
LIMITS = SafetyLimits(
    zip_max_entries=50,
    zip_ratio_min_unpacked_bytes=64 * 1024,
    animation_max_frames=50,
    animation_max_total_pixels=200_000,
    image_max_pixels=1_000_000,
)
FUZZ = settings(
    max_examples=100,
    deadline=None,  # time is asserted against the CPU budget instead
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

_names = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=30
)
_secretish = st.sampled_from(["", hostile.secret(), hostile.secret("github_token")])


def _scan(tmp_path: Path, name: str, data: bytes) -> ScanResult:
    path = tmp_path / "upload"
    path.write_bytes(data)
    started = time.process_time()
    result = scan_file(path, name, LIMITS)
    assert time.process_time() - started < CPU_BUDGET_SECONDS
    assert result.verdict in ("approved", "blocked")
    if result.verdict == "blocked":
        assert result.block_code
        assert result.block_reason
        assert result.sanitized_path is None
    for secret in (hostile.secret(), hostile.secret("github_token")):
        assert secret[-12:] not in result.block_reason + repr(result.findings)
    if result.sanitized_path is not None:
        result.sanitized_path.unlink()
    return result


@st.composite
def _damage(draw: st.DrawFn, data: bytes) -> bytes:
    """Flip, cut or splice a few bytes, as a hostile or broken upload would."""
    damaged = bytearray(data)
    for _ in range(draw(st.integers(0, 4))):
        if not damaged:
            break
        at = draw(st.integers(0, len(damaged) - 1))
        action = draw(st.sampled_from(["flip", "cut", "insert"]))
        if action == "flip":
            damaged[at] ^= draw(st.integers(1, 255))
        elif action == "cut":
            del damaged[at:]
        else:
            damaged[at:at] = draw(st.binary(min_size=1, max_size=16))
    return bytes(damaged)


@st.composite
def _zips(draw: st.DrawFn) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for index in range(draw(st.integers(0, 6))):
            info = zipfile.ZipInfo(f"{index}/{draw(_names)}")
            info.compress_type = draw(st.sampled_from([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED]))
            info.comment = draw(st.binary(max_size=20)) + draw(_secretish).encode()
            if draw(st.booleans()):
                info.extra = hostile.extra_field(
                    draw(st.sampled_from([0x7075, 0x6375, 0xCAFE])),
                    draw(st.binary(max_size=30)),
                )
            info.external_attr = draw(st.sampled_from([0, 0o644 << 16, 0o120777 << 16]))
            body = draw(st.binary(max_size=2000)) + draw(_secretish).encode()
            encoding = draw(st.sampled_from(["utf-8", "utf-16", "utf-16-be"]))
            body += draw(st.text(max_size=200)).encode(encoding, "replace")
            archive.writestr(info, body)
        archive.comment = draw(st.binary(max_size=30))
    return draw(_damage(out.getvalue()))


@st.composite
def _images(draw: st.DrawFn) -> tuple[str, bytes]:
    image_format = draw(st.sampled_from(["PNG", "JPEG", "GIF", "WEBP"]))
    mode = draw(
        st.sampled_from(["RGB", "L", "RGBA", "P"] if image_format != "JPEG" else ["RGB", "L"])
    )
    width, height = draw(st.integers(1, 64)), draw(st.integers(1, 64))
    frames = draw(st.integers(1, 4)) if image_format != "JPEG" else 1
    images = []
    for _ in range(frames):
        pixels = draw(st.binary(min_size=width * height, max_size=width * height))
        images.append(Image.frombytes("L", (width, height), pixels).convert(mode))
    out = io.BytesIO()
    options = {"save_all": frames > 1, "append_images": images[1:]} if frames > 1 else {}
    images[0].save(out, format=image_format, **options)
    name = f"a.{image_format.lower()}"
    return name, draw(_damage(out.getvalue()))


@st.composite
def _payloads(draw: st.DrawFn) -> bytes:
    return draw(st.binary(max_size=200)) + draw(_secretish).encode()


@st.composite
def _videos(draw: st.DrawFn) -> tuple[str, bytes]:
    payloads = _payloads()
    if draw(st.booleans()):
        boxes = [
            hostile.box(draw(st.sampled_from([b"free", b"skip", b"uuid", b"meta"])), draw(payloads))
            for _ in range(draw(st.integers(0, 3)))
        ]
        data = hostile.mp4(*boxes, udta=hostile.mp4_comment(draw(payloads)), mdat=draw(payloads))
        return "clip.mp4", draw(_damage(data))
    elements = [
        draw(st.sampled_from([hostile.webm_tags, hostile.webm_void, hostile.webm_cluster]))(
            draw(payloads)[:100]
        )
        for _ in range(draw(st.integers(0, 3)))
    ]
    return "clip.webm", draw(_damage(hostile.webm(*elements)))


@st.composite
def _texts(draw: st.DrawFn) -> tuple[str, bytes]:
    text = draw(st.text(max_size=500)) + draw(_secretish) + draw(st.text(max_size=100))
    encoding = draw(st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "latin-1"]))
    name = draw(st.sampled_from(["a.txt", "a.md", "a.json", "a.ndjson", "a.log", "noext"]))
    return name, draw(_damage(text.encode(encoding, "replace")))


@FUZZ
@given(data=_zips())
def test_fuzzed_zips_get_a_verdict(tmp_path_factory, data: bytes) -> None:
    _scan(tmp_path_factory.mktemp("zip"), "src.zip", data)


@FUZZ
@given(case=_images())
def test_fuzzed_images_get_a_verdict(tmp_path_factory, case: tuple[str, bytes]) -> None:
    _scan(tmp_path_factory.mktemp("image"), *case)


@FUZZ
@given(case=_videos())
def test_fuzzed_videos_get_a_verdict(tmp_path_factory, case: tuple[str, bytes]) -> None:
    _scan(tmp_path_factory.mktemp("video"), *case)


@FUZZ
@given(case=_texts())
def test_fuzzed_text_gets_a_verdict(tmp_path_factory, case: tuple[str, bytes]) -> None:
    _scan(tmp_path_factory.mktemp("text"), *case)


@FUZZ
@given(count=st.integers(0, 200), width=st.integers(1, 300), height=st.integers(1, 300))
def test_fuzzed_animation_sizes_are_bounded_before_decoding(
    tmp_path_factory, count: int, width: int, height: int
) -> None:
    data = bytearray(hostile.gif_with_frames(count))
    struct.pack_into("<HH", data, 6, width, height)  # the canvas every frame is decoded to
    result = _scan(tmp_path_factory.mktemp("gif"), "a.gif", bytes(data))
    if count > LIMITS.animation_max_frames:
        assert result.block_code == "image_too_many_frames"
    elif count > 1 and count * width * height > LIMITS.animation_max_total_pixels:
        assert result.block_code == "image_animation_too_large"
