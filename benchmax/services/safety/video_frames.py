"""A video's frames, sampled at a bounded rate for the OCR check.

One frame every ``video_frame_interval_seconds``, or fewer so that no more than
``ocr_max_frames`` are taken from a long video (they are then spread over all of it). A video
that long is decoded at its keyframes only, which costs a small fraction of a full decode;
a key shown for less than the distance between two keyframes can then be missed, which
docs/safety.md says. Frames are decoded by Debian's ffmpeg into grey pixels (all OCR reads),
one at a time, so a 4K video holds one frame in memory, not thirty.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

from PIL import Image

from benchmax.services.safety.limits import SafetyLimits

_FFMPEG = "/usr/bin/ffmpeg"
_FFPROBE = "/usr/bin/ffprobe"


def video_frames(path: Path, limits: SafetyLimits) -> Iterator[Image.Image]:
    """Grey frames of the first video stream; none if it cannot be probed."""
    width, height, duration = _probe(path)
    if width <= 0 or height <= 0 or width * height > limits.image_max_pixels:
        return
    interval = max(limits.video_frame_interval_seconds, duration / limits.ocr_max_frames)
    keyframes_only = duration / limits.video_frame_interval_seconds > limits.ocr_max_frames
    command = [
        _FFMPEG, "-nostdin", "-hide_banner", "-loglevel", "error", "-threads", "1",
        *(("-skip_frame", "nokey") if keyframes_only else ()),
        "-i", str(path), "-map", "0:V:0", "-vf", f"fps=1/{interval:.3f}",
        "-frames:v", str(limits.ocr_max_frames), "-f", "rawvideo", "-pix_fmt", "gray", "-",
    ]  # fmt: skip
    frame_bytes = width * height
    with subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    ) as decoder:
        assert decoder.stdout is not None
        try:
            while len(data := decoder.stdout.read(frame_bytes)) == frame_bytes:
                yield Image.frombytes("L", (width, height), data)
        finally:
            decoder.kill()


def _probe(path: Path) -> tuple[int, int, float]:
    # fmt: off
    completed = subprocess.run(
        [_FFPROBE, "-v", "error", "-select_streams", "V:0", "-of", "json",
         "-show_entries", "stream=width,height:format=duration", str(path)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
    )
    # fmt: on
    try:
        data = json.loads(completed.stdout)
        stream = data["streams"][0]
        return int(stream["width"]), int(stream["height"]), float(data["format"]["duration"])
    except (ValueError, KeyError, IndexError, TypeError):
        return 0, 0, 0.0
