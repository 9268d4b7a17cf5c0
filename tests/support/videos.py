"""Real, playable WebM and MP4 files made by Debian's ffmpeg at test time, and the same files
loaded with metadata in every element or box kind a parser knows.

Nothing is checked in as binary. ffmpeg writes what its muxers can (titles, comments, stream
names, chapters, subtitle streams); what no muxer writes on request (Void with data,
attachments in WebM, unknown elements, ``free``/``skip``/``uuid``/``meta`` boxes with text) is
appended at
the end of the WebM Segment or the MP4 file, where no offset inside the file moves.
"""

from __future__ import annotations

import functools
import subprocess
import tempfile
from pathlib import Path

_FFMPEG = "/usr/bin/ffmpeg"
_SEGMENT_ID = b"\x18\x53\x80\x67"


def _run(arguments: list[str]) -> None:
    subprocess.run([_FFMPEG, "-v", "error", "-nostdin", "-y", *arguments], check=True)


def _sources(seconds: float) -> list[str]:
    return [
        "-f", "lavfi", "-i", f"testsrc=size=160x120:rate=10:duration={seconds}",
        "-f", "lavfi", "-i", f"sine=frequency=440:duration={seconds}",
    ]  # fmt: skip


def _codecs(container: str) -> list[str]:
    if container == "webm":
        return ["-c:v", "libvpx", "-b:v", "200k", "-c:a", "libopus"]
    return ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac"]


@functools.cache
def plain_video(container: str, seconds: float = 2.0) -> bytes:
    """A short test-pattern video with a sine tone, and nothing else."""
    with tempfile.TemporaryDirectory() as directory:
        out = Path(directory) / f"plain.{container}"
        _run([*_sources(seconds), "-map", "0", "-map", "1", *_codecs(container), str(out)])
        return out.read_bytes()


@functools.cache
def loaded_video(container: str, marker: str) -> bytes:
    """A video carrying ``marker`` in every metadata place its container has."""
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        metadata = folder / "meta.txt"
        metadata.write_text(
            ";FFMETADATA1\n"
            f"title={marker}-title\nartist={marker}-artist\n"
            "[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1000\n"
            f"title={marker}-chapter\n"
        )
        subtitles = folder / "sub.srt"
        subtitles.write_text(f"1\n00:00:00,000 --> 00:00:01,000\n{marker}-subtitle\n")
        out = folder / f"loaded.{container}"
        webm = container == "webm"
        _run(
            [
                *_sources(2.0), "-i", str(metadata), "-i", str(subtitles),
                "-map", "0", "-map", "1", "-map", "3",
                "-map_metadata", "2", "-map_chapters", "2",
                "-metadata", f"comment={marker}-comment",
                "-metadata:s:v", f"title={marker}-stream", "-metadata:s:a", f"title={marker}-audio",
                *_codecs(container),
                "-c:s", "webvtt" if webm else "mov_text",
                str(out),
            ]
        )  # fmt: skip
        data = out.read_bytes()
    text = f"{marker}-appended".encode()
    if webm:
        tag = ebml(b"\x73\x73", ebml(b"\x67\xc8", ebml(b"\x45\xa3", text)))
        # Attachments > AttachedFile > FileName, FileMimeType, FileData (the WebM muxer
        # refuses to write attachments; Matroska players read them all the same).
        attached = (
            ebml(b"\x46\x6e", b"notes.txt")
            + ebml(b"\x46\x60", b"text/plain")
            + ebml(b"\x46\x5c", f"{marker}-attachment".encode())
        )
        return append_to_segment(
            data,
            ebml(b"\xec", text),  # Void
            ebml(b"\x7a\xbc", text),  # an element no specification defines
            ebml(b"\x12\x54\xc3\x67", tag),  # Tags
            ebml(b"\x19\x41\xa4\x69", ebml(b"\x61\xa7", attached)),
        )
    return data + b"".join(
        box(kind, b"\x00" * 4 + text) for kind in (b"free", b"skip", b"uuid", b"meta", b"zzzz")
    )


def box(kind: bytes, payload: bytes) -> bytes:
    return (8 + len(payload)).to_bytes(4, "big") + kind + payload


def ebml(element_id: bytes, payload: bytes) -> bytes:
    """An element with an eight-byte size field, which any payload fits."""
    return element_id + b"\x01" + len(payload).to_bytes(7, "big") + payload


def append_to_segment(webm: bytes, *elements: bytes) -> bytes:
    """``webm`` with ``elements`` added at the end of its Segment (whose size grows)."""
    at = webm.index(_SEGMENT_ID) + len(_SEGMENT_ID)
    width = 8 - (webm[at].bit_length() - 1)  # the size field's length, from its marker bit
    size = int.from_bytes(webm[at : at + width], "big") & ((1 << (7 * width)) - 1)
    extra = b"".join(elements)
    marker = 1 << (7 * width)
    new_size = (marker | (size + len(extra))).to_bytes(width, "big")
    return webm[:at] + new_size + webm[at + width :] + extra


def probe(path: Path) -> subprocess.CompletedProcess[str]:
    """ffprobe's reading of a file: its streams' types and the container's duration."""
    command = ["/usr/bin/ffprobe", "-v", "error", "-of", "csv=p=0"]
    command += ["-show_entries", "stream=codec_type:format=duration", str(path)]
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        check=False,
    )
