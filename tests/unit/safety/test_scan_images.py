import hashlib
import io
from pathlib import Path

import pytest
from PIL import Image, ImageCms

from benchmax.services.safety import SafetyLimits, scan_file
from benchmax.services.safety.frames import gif_frame_count
from tests.unit.safety import hostile
from tests.unit.safety.corpus import (
    jpeg_with_gps,
    png_bytes,
    png_claiming_dimensions,
    write,
    zip_bytes,
)

LIMITS = SafetyLimits()


def _reopen(path: Path) -> Image.Image:
    image = Image.open(path)
    image.load()
    return image


def test_png_is_approved_and_re_encoded(tmp_path: Path) -> None:
    result = scan_file(write(tmp_path, "shot.png", png_bytes((64, 48))), "shot.png", LIMITS)
    assert result.verdict == "approved"
    assert (result.kind, result.content_type) == ("image", "image/png")
    assert (result.width, result.height) == (64, 48)
    assert result.sanitized_path is not None
    stored = result.sanitized_path.read_bytes()
    assert result.sha256 == hashlib.sha256(stored).hexdigest()
    assert result.size_bytes == len(stored)
    assert _reopen(result.sanitized_path).size == (64, 48)


def test_jpeg_loses_exif_gps_and_comment_but_keeps_orientation(tmp_path: Path) -> None:
    source = write(tmp_path, "photo.jpg", jpeg_with_gps((80, 60)))
    assert Image.open(source).getexif().get_ifd(0x8825)  # the corpus really has GPS
    result = scan_file(source, "photo.jpg", LIMITS)
    assert result.verdict == "approved"
    assert result.sanitized_path is not None
    clean = _reopen(result.sanitized_path)
    assert clean.format == "JPEG"
    assert len(clean.getexif()) == 0
    assert "exif" not in clean.info
    assert "comment" not in clean.info
    assert b"FakeCam" not in result.sanitized_path.read_bytes()
    # Orientation 6 was applied to the pixels before the tag was dropped.
    assert (result.width, result.height) == clean.size == (60, 80)


def test_png_text_and_icc_chunks_are_removed(tmp_path: Path) -> None:
    from PIL import PngImagePlugin

    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "secret location")
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    source = write(tmp_path, "a.png", png_bytes(pnginfo=info, icc_profile=icc))
    result = scan_file(source, "a.png", LIMITS)
    assert result.sanitized_path is not None
    clean = _reopen(result.sanitized_path)
    assert "icc_profile" not in clean.info
    assert "Comment" not in clean.info
    assert b"secret location" not in result.sanitized_path.read_bytes()


def test_polyglot_is_neutralised(tmp_path: Path) -> None:
    appended = zip_bytes({"index.html": b"<script>alert(1)</script>"}) + b"<html><script>"
    source = write(tmp_path, "poly.png", png_bytes() + appended)
    result = scan_file(source, "poly.png", LIMITS)
    assert result.verdict == "approved"
    assert result.sanitized_path is not None
    stored = result.sanitized_path.read_bytes()
    assert b"PK\x03\x04" not in stored
    assert b"<script>" not in stored


@pytest.mark.parametrize("size", [(50_000, 50_000), (7_000, 7_000)])
def test_header_claiming_huge_dimensions_is_blocked_before_decoding(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    # Decoding would fail as truncated (or allocate gigabytes); the code proves it never did.
    source = write(tmp_path, "huge.png", png_claiming_dimensions(*size))
    result = scan_file(source, "huge.png", LIMITS)
    assert result.block_code == "image_too_many_pixels"
    assert "40 megapixels" in result.block_reason
    assert list(tmp_path.iterdir()) == [source]  # no half-written copy left behind


@pytest.mark.parametrize("image_format", ["PNG", "JPEG"])
def test_truncated_image_is_blocked(tmp_path: Path, image_format: str) -> None:
    out = io.BytesIO()
    Image.effect_noise((200, 200), 80).convert("RGB").save(out, format=image_format)
    data = out.getvalue()
    source = write(tmp_path, "cut.img", data[: len(data) // 2])
    assert scan_file(source, "cut.img", LIMITS).block_code == "image_corrupt"


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (bytes(range(256)) * 4, "type_not_allowed"),
        (b"just some text pretending\n", "type_mismatch"),
        (b"<html><body>hi</body></html>", "type_html_not_allowed"),
        (b"<svg xmlns='http://www.w3.org/2000/svg'><script/></svg>", "type_svg_not_allowed"),
    ],
)
def test_png_name_is_judged_by_its_bytes(tmp_path: Path, data: bytes, code: str) -> None:
    result = scan_file(write(tmp_path, "fake.png", data), "fake.png", LIMITS)
    assert (result.verdict, result.block_code) == ("blocked", code)
    assert "fake.png" in result.block_reason


def test_jpeg_bytes_named_png_are_stored_as_jpeg(tmp_path: Path) -> None:
    result = scan_file(write(tmp_path, "a.png", jpeg_with_gps()), "a.png", LIMITS)
    assert (result.verdict, result.content_type) == ("approved", "image/jpeg")


def _gif(frames: int) -> bytes:
    images = [Image.new("RGB", (20, 20), (80 * index, 0, 0)) for index in range(frames)]
    out = io.BytesIO()
    images[0].save(out, format="GIF", save_all=True, append_images=images[1:], duration=80, loop=0)
    return out.getvalue()


def test_animated_gif_keeps_its_frames(tmp_path: Path) -> None:
    result = scan_file(write(tmp_path, "a.gif", _gif(3)), "a.gif", LIMITS)
    assert result.verdict == "approved"
    assert result.sanitized_path is not None
    clean = Image.open(result.sanitized_path)
    assert getattr(clean, "n_frames", 1) == 3
    assert clean.info.get("loop") == 0


def test_animation_with_too_many_pixels_is_blocked(tmp_path: Path) -> None:
    limits = SafetyLimits(animation_max_total_pixels=20 * 20 * 2)
    result = scan_file(write(tmp_path, "a.gif", _gif(3)), "a.gif", limits)
    assert result.block_code == "image_animation_too_large"


@pytest.mark.parametrize("lossless", [True, False])
def test_webp_round_trips(tmp_path: Path, lossless: bool) -> None:
    out = io.BytesIO()
    Image.effect_noise((40, 30), 50).convert("RGB").save(out, format="WEBP", lossless=lossless)
    result = scan_file(write(tmp_path, "a.webp", out.getvalue()), "a.webp", LIMITS)
    assert (result.verdict, result.width, result.height) == ("approved", 40, 30)


def test_oversize_image_is_blocked(tmp_path: Path) -> None:
    data = png_bytes((64, 64))
    result = scan_file(write(tmp_path, "a.png", data), "a.png", SafetyLimits(image_max_bytes=100))
    assert result.block_code == "file_too_large"
    assert result.sanitized_path is None


@pytest.mark.parametrize("progressive", [False, True])
def test_jpeg_cut_short_and_closed_with_an_end_marker_is_blocked(
    tmp_path: Path, progressive: bool
) -> None:
    """Pillow fills the missing half with grey and calls it a success; we do not."""
    data = hostile.jpeg_cut_and_closed(progressive=progressive)
    Image.open(io.BytesIO(data)).load()  # the decoder really does accept it
    result = scan_file(write(tmp_path, "cut.jpg", data), "cut.jpg", LIMITS)
    assert (result.verdict, result.block_code) == ("blocked", "image_corrupt")
    assert list(tmp_path.iterdir()) == [tmp_path / "cut.jpg"]


def test_grey_and_cmyk_jpegs_are_still_approved(tmp_path: Path) -> None:
    for mode in ("L", "CMYK"):
        out = io.BytesIO()
        Image.effect_noise((64, 64), 40).convert(mode).save(out, format="JPEG")
        result = scan_file(write(tmp_path, f"{mode}.jpg", out.getvalue()), "a.jpg", LIMITS)
        assert result.approved, (mode, result.block_code)


def _animations(count: int) -> dict[str, bytes]:
    return {
        "a.gif": hostile.gif_with_frames(count),
        "a.webp": hostile.animation("WEBP", count),
        "a.png": hostile.animation("PNG", count),
    }


@pytest.mark.parametrize("name", ["a.gif", "a.webp", "a.png"])
def test_animation_with_too_many_frames_is_blocked(tmp_path: Path, name: str) -> None:
    limits = SafetyLimits(animation_max_frames=5)
    assert scan_file(write(tmp_path, name, _animations(5)[name]), name, limits).approved
    result = scan_file(write(tmp_path, name, _animations(6)[name]), name, limits)
    assert (result.verdict, result.block_code) == ("blocked", "image_too_many_frames")
    assert "more than 5 frames" in result.block_reason
    assert "video" in result.block_reason  # what to do instead


@pytest.mark.parametrize("name", ["a.gif", "a.webp", "a.png"])
def test_animation_over_the_total_pixel_budget_is_blocked(tmp_path: Path, name: str) -> None:
    data = _animations(4)[name]
    frame_pixels = Image.open(io.BytesIO(data)).size[0] * Image.open(io.BytesIO(data)).size[1]
    limits = SafetyLimits(animation_max_total_pixels=frame_pixels * 3)
    result = scan_file(write(tmp_path, name, data), name, limits)
    assert (result.verdict, result.block_code) == ("blocked", "image_animation_too_large")
    assert "megapixels over all its frames" in result.block_reason


def test_a_gif_of_half_a_million_frames_is_refused_from_its_structure(tmp_path: Path) -> None:
    """Pillow would seek through every frame just to count them; the walk stops at 1,001."""
    data = hostile.gif_with_frames(500_000)
    three = Image.open(io.BytesIO(hostile.gif_with_frames(3)))
    assert getattr(three, "n_frames", 1) == 3  # a valid GIF
    assert gif_frame_count(data, 1000) == 1001
    result = scan_file(write(tmp_path, "many.gif", data), "many.gif", LIMITS)
    assert result.block_code == "image_too_many_frames"
