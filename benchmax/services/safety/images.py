"""Images: decoded in full under a pixel cap, then re-encoded from pixels alone.

Re-encoding is what makes an image safe to serve: EXIF (GPS, camera serials), ICC and text
chunks, comments, and anything appended after the image data (a ZIP or HTML polyglot) are
simply not part of the new file. The pixel count comes from the header and is checked before
any pixel is decoded, so a tiny file that claims to be 100,000 x 100,000 never allocates.

Animations (GIF, animated WebP and APNG) keep all their frames, timing and loop count. Their
frame count and their pixels over all frames are bounded from the headers before any frame is
decoded (re-encoding holds every frame), so an over-long animation is refused in milliseconds
rather than running into the scan's budget.

JPEG decoders conceal damage: libjpeg fills whatever a cut-short file lacks with grey, and a
file cut short and closed with an end-of-image marker decodes "successfully" in Pillow. So a
JPEG is decoded by a decoder that reports libjpeg's warnings (simplejpeg, strict), and any
sign of lost data blocks it as damaged; that decode supplies the pixels too, so the check
costs nothing extra.
"""

from __future__ import annotations

import os
import struct
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from PIL import Image, ImageOps, ImageSequence, JpegImagePlugin

from benchmax.services.safety.frames import gif_frame_count
from benchmax.services.safety.limits import SafetyLimits
from benchmax.services.safety.result import BlockedError

_PILLOW_FORMATS = {
    "image/png": "PNG",
    "image/jpeg": "JPEG",
    "image/webp": "WEBP",
    "image/gif": "GIF",
}
_EXTENSIONS = {"PNG": ".png", "JPEG": ".jpg", "WEBP": ".webp", "GIF": ".gif"}
# Modes each encoder writes faithfully; anything else is converted first.
_ENCODABLE_MODES = {
    "PNG": {"1", "L", "LA", "P", "RGB", "RGBA", "I", "I;16"},
    "JPEG": {"L", "RGB"},
    "WEBP": {"RGB", "RGBA"},
    "GIF": {"L", "P", "RGB", "RGBA"},
}
# zlib level 6 (Pillow's default) costs several times level 3 for a few percent of size.
_PNG_COMPRESS_LEVEL = 3
_WEBP_LOSSY_QUALITY = 90
_DEFAULT_FRAME_MS = 100
_DECODE_ERRORS = (OSError, SyntaxError, ValueError, EOFError, IndexError, struct.error, zlib.error)
# libjpeg warnings that lose no pixel data: padding before a marker (some cameras write it),
# a newer JFIF version. Every other warning means data was missing or unreadable.
_HARMLESS_JPEG_WARNINGS = ("extraneous bytes before marker", "unknown JFIF revision")


@dataclass(frozen=True, slots=True)
class SanitisedImage:
    path: Path
    width: int
    height: int
    # The decoded frames, for the OCR check to read without decoding them again.
    frames: list[Image.Image]


def sanitise_image(
    path: Path, content_type: str, limits: SafetyLimits, label: str
) -> SanitisedImage:
    """Write a metadata-free re-encoding of ``path`` beside it and describe it.

    The copy lands in the input's directory so the caller's scratch-directory clean-up
    removes it; if the image is refused no copy is left behind.
    """
    image_format = _PILLOW_FORMATS[content_type]
    try:
        with Image.open(path, formats=[image_format]) as image:
            _check_pixels(image, image_format, path, limits, label)
            frames, options = decode_frames(image, image_format, path)
    except Image.DecompressionBombError:
        raise _too_many_pixels(label, limits) from None
    except _DECODE_ERRORS:
        raise _corrupt(label) from None
    width, height = frames[0].size
    handle, name = tempfile.mkstemp(
        dir=path.parent, prefix=f"{path.name}.", suffix=_EXTENSIONS[image_format]
    )
    os.close(handle)
    output = Path(name)
    try:
        encode_frames(frames, image_format, options, output)
    except BaseException:
        output.unlink(missing_ok=True)
        raise
    return SanitisedImage(output, width, height, frames)


def _corrupt(label: str) -> BlockedError:
    return BlockedError(
        "image_corrupt",
        f"{label} could not be read as a complete image: it may be truncated or damaged. "
        "Export it again and upload the new file.",
    )


def _strict_jpeg_pixels(path: Path, colourspace: str, *, check_only: bool = False) -> Any:
    """The JPEG's pixels from a decoder that reports libjpeg's warnings; ``ValueError``
    (shown as a damaged image) when one of them says data was lost.

    ``check_only`` decodes at 1/8 scale: entropy decoding, which finds the damage, is all
    that is needed then.
    """
    # Imported here: it brings numpy, which only JPEG scans should pay for at start-up.
    import simplejpeg

    data = path.read_bytes()
    scale = {"min_height": 1, "min_width": 1} if check_only else {}
    try:
        return simplejpeg.decode_jpeg(data, colorspace=colourspace, strict=True, **scale)
    except ValueError as error:
        if not any(warning in str(error) for warning in _HARMLESS_JPEG_WARNINGS):
            raise
    return simplejpeg.decode_jpeg(data, colorspace=colourspace, strict=False, **scale)


def _decode_jpeg(image: Image.Image, path: Path) -> Image.Image:
    """Decode a JPEG once, strictly. Greyscale and RGB (nearly all) are decoded by the strict
    decoder itself; CMYK and other colour spaces are checked by it and decoded by Pillow,
    which knows their conventions (Adobe's inverted CMYK)."""
    if image.mode not in _ENCODABLE_MODES["JPEG"]:
        _strict_jpeg_pixels(path, "GRAY", check_only=True)
        image.load()
        return image
    pixels = _strict_jpeg_pixels(path, "RGB" if image.mode == "RGB" else "GRAY")
    if pixels.shape[:2] != image.size[::-1]:
        raise ValueError("decoded size differs from the header")
    decoded = Image.frombuffer(image.mode, image.size, pixels, "raw", image.mode, 0, 1)
    # The orientation tag is applied by exif_transpose and stripped with the rest.
    if "exif" in image.info:
        decoded.info["exif"] = image.info["exif"]
    return decoded


def _too_many_pixels(label: str, limits: SafetyLimits) -> BlockedError:
    megapixels = limits.image_max_pixels / 1_000_000
    return BlockedError(
        "image_too_many_pixels",
        f"{label} is larger than {megapixels:g} megapixels. Resize it and upload it again.",
    )


def _check_pixels(
    image: Image.Image, image_format: str, path: Path, limits: SafetyLimits, label: str
) -> None:
    width, height = image.size
    if width * height > limits.image_max_pixels:
        raise _too_many_pixels(label, limits)
    if image_format == "JPEG":
        return  # multi-picture JPEGs are read for their first picture only
    # Pillow counts GIF frames by seeking through all of them; the walk stops at the limit.
    if image_format == "GIF":
        frame_count = gif_frame_count(path.read_bytes(), limits.animation_max_frames)
    else:
        frame_count = getattr(image, "n_frames", 1)  # WebP and APNG declare it up front
    if frame_count > limits.animation_max_frames:
        raise BlockedError(
            "image_too_many_frames",
            f"{label} has more than {limits.animation_max_frames:,} frames. Shorten the "
            "animation (or drop frames), or upload it as an MP4 or WebM video.",
        )
    total = frame_count * width * height
    if frame_count > 1 and total > limits.animation_max_total_pixels:
        megapixels = limits.animation_max_total_pixels / 1_000_000
        raise BlockedError(
            "image_animation_too_large",
            f"{label} has {frame_count:,} frames of {width}x{height}, {total / 1_000_000:,.0f} "
            f"megapixels in all; an animation may hold {megapixels:g} megapixels over all its "
            "frames. Shorten or shrink it, or upload it as an MP4 or WebM video.",
        )


def decode_frames(
    image: Image.Image, image_format: str, path: Path
) -> tuple[list[Image.Image], dict[str, Any]]:
    """Every frame, fully decoded and stripped of ``info``, plus the save options to keep.

    Pillow's encoders copy some metadata (ICC profiles, JPEG comments) from ``info``, so each
    frame's is replaced by nothing; only pixel semantics (transparency) and timing are passed
    back explicitly.
    """
    options: dict[str, Any] = {}
    if image_format == "JPEG" and image.mode in _ENCODABLE_MODES["JPEG"]:
        # The source's own quantisation keeps the re-encode close to the original quality.
        assert isinstance(image, JpegImagePlugin.JpegImageFile)
        options["qtables"] = image.quantization
        options["subsampling"] = JpegImagePlugin.get_sampling(image)
    elif image_format == "PNG":
        options["compress_level"] = _PNG_COMPRESS_LEVEL
    elif image_format == "WEBP":
        options.update(_webp_options(path))
    if _is_animated(image, image_format):
        return _decode_animation(image, options)
    if image_format == "JPEG":
        image = _decode_jpeg(image, path)
    else:
        image.load()
    # Photos rely on the EXIF orientation that is about to be stripped. In place: a copy of
    # every pixel would buy nothing, as ``image`` is not used again.
    ImageOps.exif_transpose(image, in_place=True)
    clean = image
    if clean.mode not in _ENCODABLE_MODES[image_format]:
        clean = clean.convert("RGBA" if "A" in clean.getbands() else "RGB")
    if "transparency" in clean.info:
        options["transparency"] = clean.info["transparency"]
    clean.info = {}
    return [clean], options


def encode_frames(
    frames: list[Image.Image], image_format: str, options: dict[str, Any], target: Path | IO[bytes]
) -> None:
    """Write ``decode_frames``' output as one file: a still image, or every frame in order.

    Both are public so that the scan benchmark's floor does exactly the work done here.
    """
    frames[0].save(
        target,
        format=image_format,
        save_all=len(frames) > 1,
        append_images=frames[1:],
        **options,
    )


def _decode_animation(
    image: Image.Image, options: dict[str, Any]
) -> tuple[list[Image.Image], dict[str, Any]]:
    # Pillow composites each frame; RGBA keeps transparency without per-frame palettes.
    frames: list[Image.Image] = []
    durations: list[int] = []
    for frame in ImageSequence.Iterator(image):
        frame.load()
        durations.append(int(frame.info.get("duration", _DEFAULT_FRAME_MS)))
        clean = frame.convert("RGBA")
        clean.info = {}
        frames.append(clean)
    options["duration"] = durations
    if "loop" in image.info:
        options["loop"] = image.info["loop"]
    return frames, options


def _is_animated(image: Image.Image, image_format: str) -> bool:
    # Multi-picture JPEGs (MPO) are stereo pairs or previews, not animations: first image only.
    return image_format != "JPEG" and getattr(image, "n_frames", 1) > 1


def _webp_options(path: Path) -> dict[str, Any]:
    """Lossless WebP stays lossless; lossy is re-encoded at a high quality."""
    with path.open("rb") as file:
        file.seek(12)
        chunk = file.read(4)
    return {"lossless": True} if chunk == b"VP8L" else {"quality": _WEBP_LOSSY_QUALITY}
