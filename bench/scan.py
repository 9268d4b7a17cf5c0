"""Scan throughput for a typical Test, as a ratio of plain SHA-256 over the same bytes.

A typical Test here is 1 MB of log text, three images of 1-2 megapixels and a 5 MB ZIP of
source files, all generated. Hashing is what every stored byte costs anyway, so the
ratio says how much dearer safety processing is than merely storing; the target is >= 0.25.
The best of several rounds is reported for every measurement so background load on a shared
machine skews none.

The target cannot be met by any scanner that does what docs/safety.md requires, which the "floor"
line measures: with no check at all, a scan still has to inflate every ZIP entry (to look
inside) and decode and re-encode every image (to strip metadata and polyglots). Timed with
zlib, as the scanner's zipfile uses, and the scanner's own image encoder settings, that work
alone costs many times what hashing does, so the best ratio it allows is far below 0.25
(about 0.03 on the two-core machine this was written on). The floor ratio is the honest
ceiling; scan/floor is what the checks add on top of it, and its target is <= 1.5x, judged
on CPU time (this process's own work, which other load on the machine barely changes).

Keys in pixels: every image is also read by OCR (``safety/pixel_text.py``). On generated
screenshots (tests/support/screenshots.py: terminals, code and chat pages, dark and light,
12-20 px monospace and proportional type, PNG and JPEG) this prints the share of those
showing a key that are held (target >= 95%), the share of ordinary ones held (target <= 1%),
and what OCR costs per screenshot as a ratio to decoding the same image the way the scanner
does, in CPU time including tesseract's own process.

Run: ``.venv/bin/python -m bench.scan``; ``measure_scan_ratio()`` is reused by other benches.
"""

from __future__ import annotations

import hashlib
import io
import json
import random
import resource
import struct
import tempfile
import time
import zipfile
import zlib
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from benchmax.services.safety import BlockedError, SafetyLimits, scan_file
from benchmax.services.safety.images import decode_frames, encode_frames
from benchmax.services.safety.pixel_text import check_pixels
from tests.support.screenshots import KEY_KINDS, Screenshot, key_screenshots, plain_screenshots

TARGET_RATIO = 0.25
OCR_TARGET_RECALL = 0.95
OCR_TARGET_HELD = 0.01
OCR_KEY_SCREENSHOTS = 5 * len(KEY_KINDS)
OCR_PLAIN_SCREENSHOTS = 210
# What the checks may add on top of the floor's unavoidable work.
TARGET_OVER_FLOOR = 1.5
_ROUNDS = 7
_MB = 1_000_000
# Where a ZIP local header keeps the lengths of the name and extra field before the data.
_LOCAL_HEADER_LENGTHS = struct.Struct("<26xHH")
_WORDS = (
    "model", "output", "reasoning", "step", "answer", "check", "test", "prompt", "token",
    "value", "result", "error", "retry", "config", "layout", "render", "button", "state",
    "event", "handler", "request", "response", "latency", "cache", "index",
)  # fmt: skip


def _log_text(rng: random.Random, size: int) -> bytes:
    lines: list[str] = []
    total = 0
    while total < size:
        words = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(6, 14)))
        stamp = f"2025-01-{rng.randint(1, 28):02d}T12:{rng.randint(0, 59):02d}"
        line = f"{stamp} INFO {words} n={rng.randint(0, 99999)}"
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines).encode()


def _source_file(rng: random.Random, identifiers: list[str], lines: int) -> bytes:
    out = []
    for _ in range(lines):
        name, other = rng.choice(identifiers), rng.choice(identifiers)
        out.append(
            rng.choice(
                (
                    f"export function {name}({other}, options) {{",
                    f"  const {name} = await {other}.{rng.choice(_WORDS)}({rng.randint(0, 9999)});",
                    f"  if (!{name}) return {other};",
                    f"  // {' '.join(rng.choice(_WORDS) for _ in range(8))}",
                    "}",
                )
            )
        )
    return "\n".join(out).encode()


def _source_zip(rng: random.Random, packed_target: int) -> bytes:
    identifiers = [
        "".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(4, 12)))
        for _ in range(3000)
    ]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("index.html", b"<!doctype html><script src='src/main.js'></script>")
        archive.writestr("package.json", json.dumps({"name": "demo", "version": "1.0.0"}))
        index = 0
        while out.tell() < packed_target:
            archive.writestr(f"src/module_{index}.js", _source_file(rng, identifiers, 1500))
            index += 1
    return out.getvalue()


def _screenshot(rng: random.Random, size: tuple[int, int]) -> Image.Image:
    image = Image.new("RGB", size, (245, 246, 248))
    draw = ImageDraw.Draw(image)
    for _ in range(400):
        x, y = rng.randrange(size[0]), rng.randrange(size[1])
        colour = tuple(rng.randrange(256) for _ in range(3))
        draw.rectangle((x, y, x + rng.randint(20, 300), y + rng.randint(8, 60)), fill=colour)
        draw.text((x + 4, y + 2), " ".join(rng.choice(_WORDS) for _ in range(4)), fill=(20, 20, 20))
    return image


def _photo(size: tuple[int, int]) -> Image.Image:
    gradient = Image.linear_gradient("L").resize(size)
    noise = Image.effect_noise(size, 40)
    return Image.merge("RGB", (gradient, noise, Image.blend(gradient, noise, 0.5)))


def build_typical_test(directory: Path, seed: int = 7) -> list[Path]:
    """Write a typical Test's files into ``directory`` and return their paths."""
    rng = random.Random(seed)
    files = {
        "run.log": _log_text(rng, _MB),
        "source.zip": _source_zip(rng, 5 * _MB),
    }
    images = {
        "screen.png": (_screenshot(rng, (1600, 900)), "PNG"),
        "photo.jpg": (_photo((1920, 1080)), "JPEG"),
        "diagram.png": (_screenshot(rng, (1280, 1024)), "PNG"),
    }
    for name, (image, image_format) in images.items():
        out = io.BytesIO()
        image.save(out, format=image_format, quality=90)
        files[name] = out.getvalue()
    paths = []
    for name, data in files.items():
        path = directory / name
        path.write_bytes(data)
        paths.append(path)
    return paths


def _sha256_files(paths: list[Path]) -> None:
    for path in paths:
        digest = hashlib.sha256()
        with path.open("rb") as file:
            while chunk := file.read(1024 * 1024):
                digest.update(chunk)
        digest.hexdigest()


def _time_each(paths: list[Path], work: Callable[[Path], None], per_file: dict[str, float]) -> None:
    for path in paths:
        started = time.perf_counter()
        work(path)
        per_file[path.name] = min(per_file[path.name], time.perf_counter() - started)


def _scanner(limits: SafetyLimits) -> Callable[[Path], None]:
    def scan(path: Path) -> None:
        result = scan_file(path, path.name, limits)
        if not result.approved:
            raise RuntimeError(f"benchmark file {path.name} was blocked: {result.block_code}")
        if result.sanitized_path is not None:
            result.sanitized_path.unlink()

    return scan


def _inflate_entries(path: Path) -> None:
    """Every entry's data read and inflated in one go: no caps, no CRC, no text scanning."""
    with zipfile.ZipFile(path) as archive, path.open("rb") as file:
        for info in archive.infolist():
            file.seek(info.header_offset)
            name_length, extra_length = _LOCAL_HEADER_LENGTHS.unpack(
                file.read(_LOCAL_HEADER_LENGTHS.size)
            )
            file.seek(name_length + extra_length, io.SEEK_CUR)
            data = file.read(info.compress_size)
            if info.compress_type == zipfile.ZIP_DEFLATED:
                zlib.decompressobj(-zlib.MAX_WBITS).decompress(data)


def _reencoder(image_format: str) -> Callable[[Path], None]:
    """The scanner's decode and encode steps, into memory: no size checks, no temporary file."""

    def reencode(path: Path) -> None:
        with Image.open(path, formats=[image_format]) as image:
            frames, options = decode_frames(image, image_format, path)
        encode_frames(frames, image_format, options, io.BytesIO())

    return reencode


# The floor's work per file suffix; text needs none beyond reading, which hashing pays too.
_FLOOR_WORK = {".zip": _inflate_entries, ".png": _reencoder("PNG"), ".jpg": _reencoder("JPEG")}


def _floor_work(path: Path) -> None:
    _FLOOR_WORK[path.suffix](path)


def _best_seconds(run: Callable[[], None], best: tuple[float, float]) -> tuple[float, float]:
    """The best (wall, CPU) seconds so far. CPU time is what the work itself costs: other
    processes on a shared machine stretch wall time, barely the CPU time of this one."""
    started, started_cpu = time.perf_counter(), time.process_time()
    run()
    wall, cpu = time.perf_counter() - started, time.process_time() - started_cpu
    return min(best[0], wall), min(best[1], cpu)


def measure_scan_ratio(rounds: int = _ROUNDS) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bmx-bench-scan-") as scratch:
        paths = build_typical_test(Path(scratch))
        file_bytes = {path.name: path.stat().st_size for path in paths}
        total_bytes = sum(file_bytes.values())
        floor_paths = [path for path in paths if path.suffix in _FLOOR_WORK]
        scan = _scanner(SafetyLimits())
        per_file: dict[str, float] = defaultdict(lambda: float("inf"))
        floor_per_file: dict[str, float] = defaultdict(lambda: float("inf"))
        unmeasured = (float("inf"), float("inf"))
        scan_best = hash_best = floor_best = unmeasured
        for _ in range(rounds):
            hash_best = _best_seconds(lambda: _sha256_files(paths), hash_best)
            scan_best = _best_seconds(lambda: _time_each(paths, scan, per_file), scan_best)
            floor_best = _best_seconds(
                lambda: _time_each(floor_paths, _floor_work, floor_per_file), floor_best
            )
    (scan_seconds, scan_cpu), (hash_seconds, _), (floor_seconds, floor_cpu) = (
        scan_best,
        hash_best,
        floor_best,
    )
    return {
        "bytes": total_bytes,
        "scan_seconds": scan_seconds,
        "sha256_seconds": hash_seconds,
        "floor_seconds": floor_seconds,
        "scan_mb_per_s": total_bytes / _MB / scan_seconds,
        "sha256_mb_per_s": total_bytes / _MB / hash_seconds,
        "floor_mb_per_s": total_bytes / _MB / floor_seconds,
        "ratio": hash_seconds / scan_seconds,
        "floor_ratio": hash_seconds / floor_seconds,
        "scan_over_floor": scan_seconds / floor_seconds,
        "scan_over_floor_cpu": scan_cpu / floor_cpu,
        "target_over_floor": TARGET_OVER_FLOOR,
        "target_ratio": TARGET_RATIO,
        "per_file_seconds": dict(per_file),
        "floor_per_file_seconds": dict(floor_per_file),
        "file_bytes": file_bytes,
    }


def _cpu_with_children() -> float:
    """This process's CPU seconds plus those of its finished children (tesseract)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _decoded(shot: Screenshot) -> list[Image.Image]:
    image_format = "PNG" if shot.name.endswith(".png") else "JPEG"
    with tempfile.NamedTemporaryFile(suffix=shot.name) as file:
        file.write(shot.data)
        file.flush()
        with Image.open(file.name, formats=[image_format]) as image:
            frames, _ = decode_frames(image, image_format, Path(file.name))
    return frames


def ocr_cost(shot: Screenshot, limits: SafetyLimits) -> tuple[float, float, bool]:
    """CPU seconds to decode ``shot`` as the scanner does and to read it (tesseract included),
    and whether it was held."""
    started = _cpu_with_children()
    frames = _decoded(shot)
    decoded = _cpu_with_children()
    try:
        check_pixels(frames, shot.name, limits)
        blocked = False
    except BlockedError:
        blocked = True
    done = _cpu_with_children()
    return max(decoded - started, 1e-6), done - decoded, blocked


def measure_ocr(
    key_count: int = OCR_KEY_SCREENSHOTS, plain_count: int = OCR_PLAIN_SCREENSHOTS
) -> dict[str, Any]:
    """Recall, false holds and the OCR/decode cost ratio on generated 1440x900 screenshots.

    The wall-clock net on reading is widened: on a shared machine under load it ends a read
    that would have finished (a scan retries then), and a rate must count what was read."""
    limits = SafetyLimits(ocr_seconds=600.0)
    shots = key_screenshots(seed=1, count=key_count) + plain_screenshots(seed=2, count=plain_count)
    ratios: list[float] = []
    ocr_seconds: list[float] = []
    missed: list[str] = []
    held: list[str] = []
    for shot in shots:
        decode, ocr, blocked = ocr_cost(shot, limits)
        ratios.append(ocr / decode)
        ocr_seconds.append(ocr)
        if shot.key_kind is not None and not blocked:
            missed.append(shot.name)
        if shot.key_kind is None and blocked:
            held.append(shot.name)
    ratios.sort()
    ocr_seconds.sort()
    return {
        "recall": 1 - len(missed) / key_count,
        "held": len(held) / plain_count,
        "missed": missed,
        "held_names": held,
        "key_count": key_count,
        "plain_count": plain_count,
        "ratio_median": ratios[len(ratios) // 2],
        "ratio_p95": ratios[min(len(ratios) - 1, round(0.95 * (len(ratios) - 1)))],
        "ocr_ms_median": 1000 * ocr_seconds[len(ocr_seconds) // 2],
    }


def print_ocr(figures: dict[str, Any]) -> None:
    recall, held = figures["recall"], figures["held"]
    verdict = "meets" if recall >= OCR_TARGET_RECALL else "misses"
    print(
        f"OCR: screenshots with a key held: {recall:.1%} of {figures['key_count']} "
        f"({verdict} target >= {OCR_TARGET_RECALL:.0%}); missed: {figures['missed'] or 'none'}"
    )
    verdict = "meets" if held <= OCR_TARGET_HELD else "misses"
    print(
        f"OCR: ordinary screenshots held: {held:.1%} of {figures['plain_count']} "
        f"({verdict} target <= {OCR_TARGET_HELD:.0%}); held: {figures['held_names'] or 'none'}"
    )
    print(
        f"OCR cost per 1440x900 screenshot: {figures['ratio_median']:.1f}x its decode "
        f"(median; p95 {figures['ratio_p95']:.1f}x), {figures['ocr_ms_median']:.0f} ms CPU "
        "(median, tesseract included)"
    )


def main() -> None:
    figures = measure_scan_ratio()
    print(f"typical Test: {figures['bytes'] / _MB:.1f} MB in 5 files")
    for key in ("sha256", "scan", "floor"):
        rate, seconds = figures[f"{key}_mb_per_s"], figures[f"{key}_seconds"]
        print(f"{key + ':':8s}{rate:8.1f} MB/s ({seconds * 1000:.1f} ms)")
    print("  file           size      scan     floor")
    for name, seconds in sorted(figures["per_file_seconds"].items()):
        size = figures["file_bytes"][name] / _MB
        floor = figures["floor_per_file_seconds"].get(name)
        shown = f"{floor * 1000:6.1f} ms" if floor is not None else "     -"
        print(f"  {name:12s} {size:5.2f} MB {seconds * 1000:7.1f} ms {shown}")
    verdict = "meets" if figures["ratio"] >= TARGET_RATIO else "below"
    print(f"ratio:  {figures['ratio']:.3f} ({verdict} target {TARGET_RATIO})")
    print(
        f"floor:  {figures['floor_ratio']:.3f} at best, with no checks at all "
        "(inflating the ZIP, re-encoding the images)"
    )
    over_cpu = figures["scan_over_floor_cpu"]
    verdict = "meets" if over_cpu <= TARGET_OVER_FLOOR else "misses"
    print(
        f"scan/floor: {figures['scan_over_floor']:.2f}x wall, {over_cpu:.2f}x CPU "
        f"({verdict} target <= {TARGET_OVER_FLOOR}x, judged on CPU time)"
    )
    print_ocr(measure_ocr())


if __name__ == "__main__":
    main()
