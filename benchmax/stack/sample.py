"""What the stack's tests and load runs submit: one plain Test form and a small real PNG."""

from __future__ import annotations

import io

from PIL import Image

SAMPLE_FORM = {
    "prompt": "Build a todo app.",
    "model": "Claude Sonnet 4.5",
    "model_version": "2025-09-29",
    "harness": "Claude Code",
    "reasoning": "high",
    "output": "It works.",
    "settings": "temperature 0",
    "attempts": "1",
    "source_visibility": "public",
}


def sample_png() -> bytes:
    """A 64 by 48 gradient: a real image the safety scan decodes, a few hundred bytes."""
    image = Image.new("RGB", (64, 48))
    image.putdata([((x * 7) % 256, (y * 5) % 256, 90) for y in range(48) for x in range(64)])
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
