"""Keys shown in pixels: an image's or a video's frames are read by OCR and the text goes
through the credential detector, made tolerant of what OCR does to a key.

A hit blocks the file like a key in a text file (its quarantined bytes are deleted and the
Test needs attention), with a reason naming the file and the kind of key and saying how to
fix it; the key itself is never written anywhere.

OCR is paid for like the rest of the scan: tesseract and ffmpeg run as children of the scan's
child process, inherit its memory ceiling and CPU allowance, and their CPU time counts in
what the parent measures, so a file whose text costs more than the allowance is blocked as
too expensive to check. ``SafetyLimits.ocr_seconds`` is only a wall-clock net that ends a
reader left running (``OcrTimeoutError`` propagates, and the job retries it like any scan
past its deadline); no image is ever published with its text unread.
"""

from __future__ import annotations

from collections.abc import Iterable

from PIL import Image

from benchmax.services.safety.limits import SafetyLimits
from benchmax.services.safety.ocr import read_key_lines
from benchmax.services.safety.result import BlockedError
from benchmax.services.safety.secrets_ocr import find_secrets_in_ocr

KEY_IN_PIXELS = "secret_in_pixels"


def check_pixels(frames: Iterable[Image.Image], label: str, limits: SafetyLimits) -> None:
    """Raise ``BlockedError`` when the frames show what looks like a key."""
    found = find_secrets_in_ocr(read_key_lines(frames, timeout=limits.ocr_seconds))
    if not found:
        return
    kind = found[0].kind
    article = "an" if kind[0].lower() in "aeiox" else "a"
    raise BlockedError(
        KEY_IN_PIXELS,
        f"{label} shows what looks like {article} {kind}: crop or blur it and upload it "
        "again — BenchMax never needs your model keys.",
        findings=[{"type": "secret", "code": hit.code, "kind": hit.kind} for hit in found],
    )


def sample_frames(frames: list[Image.Image], limit: int) -> list[Image.Image]:
    """At most ``limit`` frames spread evenly over an animation, first and last included."""
    if len(frames) <= limit:
        return frames
    step = (len(frames) - 1) / (limit - 1)
    return [frames[round(index * step)] for index in range(limit)]
