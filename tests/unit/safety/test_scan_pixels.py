"""Keys in pixels: screenshots and animations are read by OCR, and what looks like a key
holds the file; ordinary screens pass. Every image here is generated (tests/support)."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from benchmax.services.safety import SafetyLimits, scan_file
from benchmax.services.scan_process import scan_in_child
from tests.support.screenshots import (
    KEY_KINDS,
    MONOSPACE,
    Screenshot,
    key_screenshots,
    plain_screenshots,
)
from tests.unit.safety.corpus import write

LIMITS = SafetyLimits()
# A smaller fixed set than bench/scan.py's, with the same targets.
SIZE = (1024, 640)
MIN_RECALL = 0.95
MAX_HELD = 0.01


def _held(tmp_path: Path, shot: Screenshot) -> bool:
    result = scan_file(write(tmp_path, shot.name, shot.data), shot.name, LIMITS)
    assert result.verdict == "approved" or result.block_code == "secret_in_pixels", (
        shot.name,
        result.block_code,
    )
    return not result.approved


def test_screenshots_with_keys_of_every_kind_need_attention(tmp_path: Path) -> None:
    shots = key_screenshots(seed=24, count=len(KEY_KINDS), size=SIZE)
    assert {shot.key_kind for shot in shots} == set(KEY_KINDS)
    missed = [shot.name for shot in shots if not _held(tmp_path, shot)]
    assert 1 - len(missed) / len(shots) >= MIN_RECALL, missed


def test_ordinary_screenshots_pass(tmp_path: Path) -> None:
    shots = plain_screenshots(seed=25, count=24, size=SIZE)
    held = [shot.name for shot in shots if _held(tmp_path, shot)]
    assert len(held) / len(shots) <= MAX_HELD, held


def _terminal(lines: list[str], *, dark: bool = True, size: int = 15) -> Image.Image:
    font = ImageFont.truetype(str(MONOSPACE[0]), size)
    image = Image.new("RGB", (900, 40 + 24 * len(lines)), (20, 20, 20) if dark else "white")
    draw = ImageDraw.Draw(image)
    for row, line in enumerate(lines):
        draw.text((14, 20 + 24 * row), line, font=font, fill="white" if dark else "black")
    return image


def _key_lines() -> list[str]:
    return ["$ ls", *KEY_KINDS["anthropic_api_key"](random.Random(3)), "$ echo done"]


def _encoded(image: Image.Image, image_format: str, **options: object) -> bytes:
    out = io.BytesIO()
    image.save(out, format=image_format, **options)
    return out.getvalue()


def test_the_reason_names_the_file_and_the_kind_and_never_the_key(tmp_path: Path) -> None:
    lines = _key_lines()
    data = _encoded(_terminal(lines), "JPEG", quality=85)
    result = scan_file(write(tmp_path, "editor.jpg", data), "editor.jpg", LIMITS)
    assert result.block_code == "secret_in_pixels"
    assert result.block_reason.startswith(
        "“editor.jpg” shows what looks like an Anthropic API key: crop or blur it and upload "
        "it again"
    )
    key = lines[1].split("=", 1)[1]
    assert key[20:40] not in result.block_reason + repr(result.findings)
    assert result.findings == [
        {"type": "secret", "code": "anthropic_api_key", "kind": "Anthropic API key"}
    ]
    assert result.sanitized_path is None or not result.sanitized_path.exists()


def test_a_key_in_one_frame_of_an_animation_is_found(tmp_path: Path) -> None:
    adaptive = Image.Palette.ADAPTIVE
    blank = _terminal(["$ ls", "README.md  src", "$ echo done"]).convert("P", palette=adaptive)
    shown = _terminal(_key_lines()).convert("P", palette=adaptive)
    frames = [blank] * 4 + [shown] + [blank] * 4
    data = _encoded(frames[0], "GIF", save_all=True, append_images=frames[1:], duration=200)
    result = scan_file(write(tmp_path, "demo.gif", data), "demo.gif", LIMITS)
    assert result.block_code == "secret_in_pixels"


def test_a_key_on_a_transparent_background_is_found(tmp_path: Path) -> None:
    font = ImageFont.truetype(str(MONOSPACE[1]), 16)
    image = Image.new("RGBA", (900, 80), (0, 0, 0, 0))
    ImageDraw.Draw(image).text((10, 30), _key_lines()[1], font=font, fill=(0, 0, 0, 255))
    result = scan_file(write(tmp_path, "cut.png", _encoded(image, "PNG")), "cut.png", LIMITS)
    assert result.block_code == "secret_in_pixels"


def test_a_light_theme_key_in_small_type_is_found(tmp_path: Path) -> None:
    data = _encoded(_terminal(_key_lines(), dark=False, size=12), "PNG")
    result = scan_file(write(tmp_path, "small.png", data), "small.png", LIMITS)
    assert result.block_code == "secret_in_pixels"


@pytest.mark.parametrize(
    "image",
    [
        Image.new("RGB", (640, 480), (200, 30, 30)),  # no text at all
        Image.effect_noise((640, 480), 90).convert("RGB"),  # a photo-like texture
        Image.new("RGB", (1, 1)),
    ],
    ids=["flat", "noise", "one-pixel"],
)
def test_images_without_text_pass(tmp_path: Path, image: Image.Image) -> None:
    result = scan_file(write(tmp_path, "p.png", _encoded(image, "PNG")), "p.png", LIMITS)
    assert result.approved, result.block_code


def test_ocr_runs_inside_the_scan_child(tmp_path: Path) -> None:
    """The child inherits only PATH and the locale: tesseract must be found there, and a key
    found there comes back as a verdict."""
    data = _encoded(_terminal(_key_lines()), "PNG")
    result = scan_in_child(
        write(tmp_path, "term.png", data),
        "term.png",
        LIMITS,
        timeout_seconds=60,
        memory_limit_bytes=1024 * 1024 * 1024,
    )
    assert result.block_code == "secret_in_pixels"
