"""A screenful of lines is read by two tesseract processes at once: how the lines are shared
out between them, and that a key in the second share is still found."""

from __future__ import annotations

import hashlib
import io
import random
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from benchmax.services.safety import SafetyLimits, scan_file
from benchmax.services.safety.ocr import _MAX_STRIP, _SPLIT_HEIGHT, _groups, _stacked
from tests.support.screenshots import KEY_KINDS, MONOSPACE
from tests.unit.safety.corpus import write


def _crops(heights: list[int]) -> list[Image.Image]:
    return [Image.new("L", (200 + index, height), 200) for index, height in enumerate(heights)]


def test_a_screenful_is_shared_in_order_between_two_readers_of_about_equal_height() -> None:
    heights = [30 + (index * 7) % 20 for index in range(40)]
    crops = _crops(heights)
    groups = _groups(crops)
    assert len(groups) == 2
    assert [crop for group in groups for crop in group] == crops
    first, second = (_stacked(group).height for group in groups)
    # They differ by at most one line (and the gap under it).
    assert abs(first - second) <= max(heights) + 12


def test_a_few_lines_go_to_one_reader() -> None:
    crops = _crops([30, 30, 30])
    assert sum(crop.height for crop in crops) < _SPLIT_HEIGHT
    assert _groups(crops) == [crops]
    assert _groups([]) == []


def test_many_frames_of_lines_are_read_in_strips_no_taller_than_the_limit() -> None:
    crops = _crops([90] * 400)
    groups = _groups(crops)
    assert len(groups) > 2
    assert [crop for group in groups for crop in group] == crops
    assert all(_stacked(group).height <= _MAX_STRIP for group in groups)


def test_a_key_at_the_bottom_of_a_screenful_is_found(tmp_path: Path) -> None:
    """Every line is long enough to be read, so the key's line is in the second reader's
    share, whose text must reach the detector as the first one's does."""
    lines = [f"sha256:{hashlib.sha256(bytes([index])).hexdigest()}" for index in range(36)]
    lines += KEY_KINDS["anthropic_api_key"](random.Random(3))
    font = ImageFont.truetype(str(MONOSPACE[0]), 15)
    image = Image.new("RGB", (1300, 40 + 24 * len(lines)), (20, 20, 20))
    draw = ImageDraw.Draw(image)
    for row, line in enumerate(lines):
        draw.text((14, 20 + 24 * row), line, font=font, fill="white")
    data = io.BytesIO()
    image.save(data, format="PNG")
    result = scan_file(write(tmp_path, "long.png", data.getvalue()), "long.png", SafetyLimits())
    assert result.block_code == "secret_in_pixels"
