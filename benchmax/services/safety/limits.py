"""The configurable ceilings of safety processing, with the defaults in docs/safety.md.

Every size and count the scanner enforces lives here so that one frozen object, built from
settings by the caller, decides what "too big" means. Tests pass tiny limits instead of
building huge files.
"""

from __future__ import annotations

from dataclasses import dataclass

MIB = 1024 * 1024
GIB = 1024 * MIB


@dataclass(frozen=True, slots=True)
class SafetyLimits:
    image_max_bytes: int = 20 * MIB
    image_max_pixels: int = 40_000_000
    # Re-encoding an animation holds every frame in memory, so the frames together get the
    # same pixel budget as one still image; both bounds are read from headers before any
    # frame is decoded.
    animation_max_frames: int = 1000
    animation_max_total_pixels: int = 40_000_000
    video_max_bytes: int = 500 * MIB
    # OCR of an image's or a video's frames: how many frames at most (spread over an
    # animation or a video), one frame per this many seconds of video at most, and a
    # wall-clock net for a reader left running (the CPU allowance is what bounds the cost).
    ocr_max_frames: int = 30
    video_frame_interval_seconds: float = 2.0
    ocr_seconds: float = 60.0
    text_max_bytes: int = 20 * MIB
    zip_max_bytes: int = 20 * MIB
    zip_max_unpacked_bytes: int = 100 * MIB
    zip_max_entries: int = 5000
    zip_max_entry_bytes: int = 10 * MIB
    zip_max_ratio: int = 100
    # Below this much unpacked data a high ratio cannot hurt anyone (a few KiB of blank
    # lines compress 200:1), so the ratio is only enforced past it.
    zip_ratio_min_unpacked_bytes: int = MIB
    test_max_files: int = 20
    test_max_bytes: int = GIB
    # Leaves room under the 255-character column and typical filesystem limits.
    filename_max_chars: int = 180
