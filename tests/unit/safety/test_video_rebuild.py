"""Videos keep only what playback needs: rebuilt by a remux, proven by an allow-list walk,
and their frames read for keys. Every video here is made by ffmpeg at test time."""

from __future__ import annotations

import io
import random
import subprocess
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from benchmax.services.safety import SafetyLimits, scan_file
from benchmax.services.safety.video_rebuild import holds_only_playback
from tests.support.screenshots import KEY_KINDS, MONOSPACE
from tests.support.videos import (
    append_to_segment,
    box,
    ebml,
    loaded_video,
    plain_video,
    probe,
)
from tests.unit.safety import hostile
from tests.unit.safety.corpus import write

LIMITS = SafetyLimits()
MARKER = "BMXMETA"
_PLACES = {
    "webm": ("title", "artist", "chapter", "comment", "stream", "subtitle", "attachment",
             "appended"),
    "mp4": ("title", "artist", "chapter", "comment", "subtitle", "appended"),
}  # fmt: skip


@pytest.mark.parametrize("container", ["webm", "mp4"])
def test_served_bytes_hold_no_metadata_and_still_play(tmp_path: Path, container: str) -> None:
    data = loaded_video(container, MARKER)
    for place in _PLACES[container]:
        assert f"{MARKER}-{place}".encode() in data, place  # the input does carry it
    name = f"clip.{container}"
    result = scan_file(write(tmp_path, name, data), name, LIMITS)
    assert result.approved, result.block_reason
    assert result.sanitized_path is not None
    served = result.sanitized_path.read_bytes()
    assert MARKER.encode() not in served
    assert MARKER.encode("utf-16-le") not in served
    assert result.size_bytes == len(served)
    played = probe(result.sanitized_path)
    assert played.returncode == 0, played.stderr
    assert sorted(played.stdout.split()[:2]) == ["audio", "video"]
    assert holds_only_playback(result.sanitized_path, webm=container == "webm")


def test_the_allow_list_refuses_what_a_remux_could_leave(tmp_path: Path) -> None:
    webm = write(tmp_path, "clean.webm", plain_video("webm"))
    clean = scan_file(webm, "clean.webm", LIMITS).sanitized_path
    assert clean is not None
    assert holds_only_playback(clean, webm=True)
    for name, extra in {
        "void": ebml(b"\xec", b"not zeros"),
        "unknown": ebml(b"\x7a\xbc", b"\x00"),
        "title": ebml(b"\x15\x49\xa9\x66", ebml(b"\x7b\xa9", b"A title")),
    }.items():
        dirty = write(tmp_path, f"{name}.webm", append_to_segment(clean.read_bytes(), extra))
        assert not holds_only_playback(dirty, webm=True), name
    mp4 = write(tmp_path, "clean.mp4", plain_video("mp4"))
    rebuilt = scan_file(mp4, "clean.mp4", LIMITS).sanitized_path
    assert rebuilt is not None
    assert holds_only_playback(rebuilt, webm=False)
    for kind in (b"free", b"skip", b"uuid", b"meta", b"udta"):
        dirty = write(tmp_path, "dirty.mp4", rebuilt.read_bytes() + box(kind, b"\x00\x00note"))
        assert not holds_only_playback(dirty, webm=False), kind


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("structure-only.mp4", hostile.mp4()),  # boxes that tile, but no stream in them
        ("structure-only.webm", hostile.webm(hostile.webm_cluster(b"\x00" * 16))),
    ],
)
def test_a_video_ffmpeg_cannot_rebuild_is_refused(tmp_path: Path, name: str, data: bytes) -> None:
    result = scan_file(write(tmp_path, name, data), name, LIMITS)
    assert result.block_code == "video_not_rebuildable"
    assert "export it again" in result.block_reason
    assert list(tmp_path.iterdir()) == [tmp_path / name]  # no half-made copy left behind


def test_a_sound_only_webm_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "sound.webm"
    subprocess.run(
        ["/usr/bin/ffmpeg", "-v", "error", "-nostdin", "-f", "lavfi", "-i",
         "sine=duration=1", "-c:a", "libopus", str(out)],
        check=True,
    )  # fmt: skip
    assert scan_file(out, "sound.webm", LIMITS).block_code == "video_not_rebuildable"


def _key_frame(path: Path) -> None:
    font = ImageFont.truetype(str(MONOSPACE[0]), 16)
    image = Image.new("RGB", (1280, 720), (24, 24, 24))
    draw = ImageDraw.Draw(image)
    draw.text((20, 300), "$ cat .env", font=font, fill="white")
    for row, line in enumerate(KEY_KINDS["openai_api_key"](random.Random(5))):
        draw.text((20, 330 + 30 * row), line, font=font, fill="white")
    out = io.BytesIO()
    image.save(out, format="PNG")
    path.write_bytes(out.getvalue())


@pytest.mark.parametrize("container", ["webm", "mp4"])
def test_a_key_shown_in_a_recording_is_found(tmp_path: Path, container: str) -> None:
    """Three seconds of a test pattern, then two of a terminal showing a key."""
    frame = tmp_path / "frame.png"
    _key_frame(frame)
    out = tmp_path / f"rec.{container}"
    codec = (
        ["-c:v", "libvpx"] if container == "webm" else ["-c:v", "libx264", "-preset", "ultrafast"]
    )
    subprocess.run(
        ["/usr/bin/ffmpeg", "-v", "error", "-nostdin",
         "-f", "lavfi", "-i", "testsrc=size=1280x720:rate=10:duration=3",
         "-loop", "1", "-t", "2", "-r", "10", "-i", str(frame),
         "-filter_complex", "[0:v][1:v]concat=n=2:v=1[v]", "-map", "[v]",
         *codec, "-pix_fmt", "yuv420p", "-b:v", "2M", str(out)],
        check=True,
    )  # fmt: skip
    result = scan_file(out, f"rec.{container}", LIMITS)
    assert result.block_code == "secret_in_pixels"
    assert result.block_reason.startswith(f"“rec.{container}” shows what looks like an OpenAI")
    assert not (tmp_path / f"rec.{container}.rebuilt.{container}").exists()
