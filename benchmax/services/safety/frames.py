"""Counting an animation's frames from its structure, without decoding any of them.

Pillow learns how many frames a GIF has only by seeking through every one, which for a file
of a million tiny frames takes longer than a scan may; this walk reads the block structure
alone and stops as soon as the count passes the limit. (WebP and APNG declare their frame
count in a header, which Pillow reads on open.)
"""

from __future__ import annotations

_HEADER = 13  # signature, version and the logical screen descriptor
_IMAGE = 0x2C
_EXTENSION = 0x21
_COLOUR_TABLE_FLAG = 0x80


def gif_frame_count(data: bytes, stop_after: int) -> int:
    """Image descriptors in ``data``, counting at most ``stop_after + 1``.

    A malformed block ends the walk: the decoder then reports the file as damaged.
    """
    at = _skip_colour_table(data, _HEADER, data[10] if len(data) > 10 else 0)
    frames = 0
    while at < len(data) and frames <= stop_after:
        block = data[at]
        if block == _IMAGE:
            frames += 1
            flags = data[at + 9] if at + 9 < len(data) else 0
            # The descriptor, its colour table, then the LZW code size byte and sub-blocks.
            at = _skip_sub_blocks(data, _skip_colour_table(data, at + 10, flags) + 1)
        elif block == _EXTENSION:
            at = _skip_sub_blocks(data, at + 2)
        else:
            break  # the trailer, or damage
    return frames


def _skip_colour_table(data: bytes, at: int, flags: int) -> int:
    return at + (3 << ((flags & 7) + 1) if flags & _COLOUR_TABLE_FLAG else 0)


def _skip_sub_blocks(data: bytes, at: int) -> int:
    while at < len(data):
        size = data[at]
        at += 1 + size
        if size == 0:
            break
    return at
