"""Reading the text in pixels, for the credential detector: Debian's tesseract, by lines.

Tesseract reads a full 1440x900 screenshot of text in about two seconds on one core, which
three screenshots per Test cannot afford. But a key is one long unbroken run of characters,
and most lines on a screen hold none. So the picture is cut into text lines by where its
edges are (an edge is a sharp change of brightness, which glyphs are made of whatever the
theme), a line too tall to be text into columns at blank gutters (a sidebar, a picture
beside text) and those into lines again, and each line into words by the gaps between
edges. Only a line holding a word at least ``_LONG_WORD`` times as wide as the line is tall
is read, from the start of its column to the end of that word, together with the same
stretch of the line above (a PEM header, a keyword). Each kept line is made dark on light
(inverted when its own background is dark), grey, and scaled so its text is about as tall as
tesseract reads best; the lines are stacked into two images of about equal height, read by
two tesseract processes at once (a screenshot's text is then read in about half the wall time
on two cores, for the same CPU), each handed over uncompressed (encoding a PNG for tesseract to
decode again costs more than a tenth of a second of CPU per screenshot).

Runs only inside the scan's child process: tesseract is a child of that child, so it
inherits its memory ceiling and CPU allowance, and ``timeout`` bounds its wall time.
"""

from __future__ import annotations

import hashlib
import math
import os
import tempfile
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageOps

# A glyph edge: a change of at least this much brightness (0-255) to the next pixel.
_EDGE = 48
# A word this many line-heights wide can hold a 20-character key in any font we know
# (a narrow proportional font sets about 2.2 characters per line height).
_LONG_WORD = 7.0
# A gap this many line-heights wide separates words; letters sit closer than that.
_WORD_GAP = 0.28
# Text lines shorter than this are noise (JPEG ringing, rules, cursor marks).
_MIN_LINE = 6
# A gap this many line-heights wide separates columns of a layout (a sidebar, a gutter).
_GUTTER = 3.0
# Taller than this, a row of ink is not one line of text (48 px type at 2x is about 70).
_MAX_LINE = 80
# The blank width that separates a picture from the text beside it, and how many times a
# region is split into columns and rows again.
_MIN_GUTTER = 12
_MAX_DEPTH = 3
# Tesseract's recognition is best with text rows about this tall (in pixels).
_TARGET_HEIGHT = 30
_MAX_SCALE = 3.0
_MIN_SCALE = 0.5
_PAD = 8
_SEPARATOR = 12
# Taller strips are read in more than one call (tesseract's memory grows with the image).
_MAX_STRIP = 8000
# Tesseract processes reading at once. Each runs one thread, has the scan's memory ceiling
# and counts in its CPU allowance, so two only shorten the wall time. Lines shorter in all
# than _SPLIT_HEIGHT are read by one: a second process's start-up would cost more than it saves.
_READERS = 2
_SPLIT_HEIGHT = 600


# One uniform block of text (the stacked lines); no second pass on inverted text (every line
# is dark on light already); no dictionaries, which would "correct" a key towards words.
_CONFIG = "--psm 6 -c tessedit_do_invert=0 -c load_system_dawg=0 -c load_freq_dawg=0"


@dataclass(frozen=True, slots=True)
class _Band:
    top: int
    bottom: int
    left: int
    right: int

    @property
    def height(self) -> int:
        return self.bottom - self.top


def read_key_lines(images: Iterable[Image.Image], *, timeout: float) -> str:
    """The text of the lines in ``images`` that could hold a key ("" when none could).

    A line seen before (a frame of a video that did not change there) is read once. Raises
    ``OcrTimeoutError`` when tesseract needs more than ``timeout`` seconds in all.
    """
    crops: list[Image.Image] = []
    seen: set[bytes] = set()
    for image in images:
        gray = _grayscale(image)
        bands = _candidate_bands(np.asarray(gray, dtype=np.int16))
        for crop in _line_crops(gray, bands):
            digest = hashlib.blake2b(
                crop.tobytes(), digest_size=16, person=crop.width.to_bytes(8, "big")
            ).digest()
            if digest not in seen:
                seen.add(digest)
                crops.append(crop)
    deadline = time.monotonic() + timeout
    readers = ThreadPoolExecutor(max_workers=_READERS, thread_name_prefix="ocr")
    try:
        # Each group is stacked by its reader, so at most _READERS strips exist at once.
        texts = readers.map(lambda group: _tesseract(_stacked(group), deadline), _groups(crops))
        # Lines in order, as one reader would have put them.
        return "\n".join(text.rstrip("\n") for text in texts)
    finally:
        # After a failure, groups not yet started are not read.
        readers.shutdown(cancel_futures=True)


class OcrTimeoutError(Exception):
    """Reading the text took longer than the scan allows for it."""


def _grayscale(image: Image.Image) -> Image.Image:
    if "A" in image.getbands() or image.mode == "P":
        rgba = image.convert("RGBA")
        flat = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        flat.alpha_composite(rgba)
        return flat.convert("L")
    return image.convert("L")


def _edges(pixels: np.ndarray) -> np.ndarray:
    edges = np.zeros(pixels.shape, dtype=bool)
    edges[:, 1:] |= np.abs(np.diff(pixels, axis=1)) >= _EDGE
    edges[1:, :] |= np.abs(np.diff(pixels, axis=0)) >= _EDGE
    return edges


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """``(start, end)`` of every run of True in a 1-D mask."""
    padded = np.concatenate(([False], mask, [False]))
    changes = np.flatnonzero(padded[1:] != padded[:-1])
    return list(zip(changes[::2].tolist(), changes[1::2].tolist(), strict=True))


def _candidate_bands(pixels: np.ndarray) -> list[_Band]:
    edges = _edges(pixels)
    kept: dict[tuple[int, int], tuple[int, int]] = {}
    _cut(edges, 0, edges.shape[0], 0, edges.shape[1], kept, _MAX_DEPTH)
    return [
        _Band(top, bottom, left, right) for (top, bottom), (left, right) in sorted(kept.items())
    ]


def _cut(
    edges: np.ndarray,
    top: int,
    bottom: int,
    left: int,
    right: int,
    kept: dict[tuple[int, int], tuple[int, int]],
    depth: int,
) -> None:
    """Split a region into rows of text by the blank rows between them; a row too tall to
    be one line of text (text beside a picture, two columns whose lines do not align) is
    split into columns by blank gutters and each column split again, a few levels deep.
    A region that never splits into lines (a photo, a gradient) holds no text to read."""
    region = edges[top:bottom, left:right]
    previous: tuple[int, int] | None = None
    for start, end in _runs(_inked(region, 1)):
        line = (top + start, top + end)
        height = end - start
        if height < _MIN_LINE:
            continue
        if height > _MAX_LINE:
            if depth > 0:
                columns = _runs(_close(_inked(region[start:end], 0), _MIN_GUTTER))
                if len(columns) > 1:
                    for column_left, column_right in columns:
                        _cut(
                            edges, line[0], line[1], left + column_left,
                            left + column_right, kept, depth - 1,
                        )  # fmt: skip
            previous = None
            continue
        inked = [(left + a, left + b) for a, b in _runs(_inked(region[start:end], 0))]
        for span_left, span_right in _long_word_spans(inked, height):
            _widen(kept, line, span_left, span_right)
            if previous is not None:
                # The line above may hold what makes this a key: a PEM header, a keyword.
                _widen(kept, previous, span_left, span_right)
        previous = line


def _inked(region: np.ndarray, axis: int) -> np.ndarray:
    """Which rows (``axis`` 1) or columns (``axis`` 0) of ``region`` hold an edge."""
    return np.asarray(region.any(axis=axis))


def _close(mask: np.ndarray, gap: int) -> np.ndarray:
    """``mask`` with its runs of False shorter than ``gap`` filled in."""
    filled = mask.copy()
    runs = _runs(~mask)
    for start, end in runs:
        if end - start < gap and start > 0 and end < len(mask):
            filled[start:end] = True
    return filled


def _widen(
    kept: dict[tuple[int, int], tuple[int, int]], line: tuple[int, int], left: int, right: int
) -> None:
    if line in kept:
        left, right = min(left, kept[line][0]), max(right, kept[line][1])
    kept[line] = (left, right)


def _long_word_spans(inked: list[tuple[int, int]], height: int) -> list[tuple[int, int]]:
    """For each column of text on a line (split by gutters), the stretch from its start to
    the end of its last long word; none for a column without a long word.

    The start of the column is kept for the keyword a key is assigned to; what follows the
    last long word cannot be part of a key.
    """
    gap = max(2, round(_WORD_GAP * height))
    gutter = _GUTTER * height
    spans: list[tuple[int, int]] = []
    column_start = word_start = inked[0][0] if inked else 0
    long_end: int | None = None
    end = column_start
    for next_start, next_end in [*inked, (10**9, 10**9)]:
        if next_start - end >= gap:
            if end - word_start >= _LONG_WORD * height:
                long_end = end
            if next_start - end >= gutter:
                if long_end is not None:
                    spans.append((column_start, min(long_end + gap, next_start)))
                column_start, long_end = next_start, None
            word_start = next_start
        end = next_end
    return spans


def _line_crops(gray: Image.Image, bands: list[_Band]) -> Iterator[Image.Image]:
    """Each band cut out, dark on light, scaled to the height tesseract reads best."""
    if not bands:
        return
    heights = sorted(band.height for band in bands)
    scale = min(_MAX_SCALE, max(_MIN_SCALE, _TARGET_HEIGHT / heights[len(heights) // 2]))
    for band in bands:
        box = (
            max(0, band.left - _PAD),
            max(0, band.top - _PAD // 2),
            min(gray.width, band.right + _PAD),
            min(gray.height, band.bottom + _PAD // 2),
        )
        crop = gray.crop(box)
        histogram = crop.histogram()
        if max(range(256), key=histogram.__getitem__) < 128:
            crop = ImageOps.invert(crop)
        if scale != 1.0:
            size = (round(crop.width * scale), round(crop.height * scale))
            crop = crop.resize(size, Image.Resampling.BICUBIC)
        yield crop


def _groups(crops: list[Image.Image]) -> list[list[Image.Image]]:
    """The crops in order, in ``_READERS`` runs of about equal stacked height (one when they
    are short, more when a strip would be taller than ``_MAX_STRIP``)."""
    if not crops:
        return []
    heights = [crop.height + _SEPARATOR for crop in crops]
    total = sum(heights) + _SEPARATOR
    count = _READERS if total >= _SPLIT_HEIGHT else 1
    # A crop's middle lies within its strip's share of the height, so a strip is at most one
    # share plus the tallest crop, and two strips differ by at most one crop.
    count = max(min(count, len(crops)), math.ceil(total / (_MAX_STRIP - max(heights))))
    share = total / count
    groups: list[list[Image.Image]] = [[] for _ in range(count)]
    top = 0
    for crop, height in zip(crops, heights, strict=True):
        groups[min(count - 1, int((top + height / 2) / share))].append(crop)
        top += height
    return [group for group in groups if group]


def _stacked(crops: list[Image.Image]) -> Image.Image:
    """The crops one under another, dark on white, as tesseract reads a block of lines."""
    height = _SEPARATOR + sum(crop.height + _SEPARATOR for crop in crops)
    strip = Image.new("L", (max(crop.width for crop in crops) + 2 * _PAD, height), 255)
    y = _SEPARATOR
    for crop in crops:
        strip.paste(crop, (_PAD, y))
        y += crop.height + _SEPARATOR
    return strip


def _tesseract(strip: Image.Image, deadline: float) -> str:
    # Imported here: only a scan that reaches pixels pays for it.
    import pytesseract

    # Tesseract's OpenMP threads spin on a busy machine (ten times the CPU for the same
    # text); one thread is also what the scan's CPU allowance assumes.
    os.environ["OMP_THREAD_LIMIT"] = "1"
    left = deadline - time.monotonic()
    if left <= 0:
        raise OcrTimeoutError
    # Uncompressed (PGM): pytesseract would otherwise encode a PNG for tesseract to inflate.
    with tempfile.NamedTemporaryFile(prefix="bmx-ocr-", suffix=".pgm") as file:
        strip.save(file, format="PPM")
        file.flush()
        try:
            text: str = pytesseract.image_to_string(file.name, config=_CONFIG, timeout=left)
        except RuntimeError as error:
            # pytesseract says a timeout only in its message; any other failure propagates.
            if "timeout" not in str(error).lower():
                raise
            raise OcrTimeoutError from None
    return text
