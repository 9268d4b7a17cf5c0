"""The preview's own pictures pass the file scan before they are stored.

The evaluator photographs and records a contributor's page, so a page that shows a key
(printed by its script, typed into its settings screen) puts that key in the screenshot and
the recording. Each picture is scanned like an uploaded file, in the scan's child process
with its time and memory bounds (``scan_process``): the screenshot is re-encoded and read by
OCR, the recording rebuilt with only what playback needs and its frames read. A picture that
does not pass is not stored. A key seen in either drops both (they show the same page), and
readers are told in plain words why the screenshot is missing (the kind of key, never the
key itself).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from benchmax.services.jobs import JobContext
from benchmax.services.safety.pixel_text import KEY_IN_PIXELS
from benchmax.services.scan_process import scan_in_child, scan_limits

# The evaluator's pictures, in the order they are checked.
PICTURES = ("screenshot.png", "video.webm", "video.webp")
_ARTICLES = "aeiox"


def screen_pictures(ctx: JobContext, files: dict[str, bytes]) -> tuple[dict[str, bytes], str]:
    """``files`` with each picture replaced by its scanned copy or left out, and the reader's
    note ("" when every picture passed)."""
    kept = {name: data for name, data in files.items() if name not in PICTURES}
    key_kind = ""
    withheld = False
    with tempfile.TemporaryDirectory(prefix="bmx-preview-scan-") as scratch:
        for name in PICTURES:
            if name not in files:
                continue
            folder = Path(scratch) / name.replace(".", "-")
            folder.mkdir()
            path = folder / "upload"
            path.write_bytes(files[name])
            result = scan_in_child(
                path,
                name,
                scan_limits(ctx.settings),
                timeout_seconds=ctx.settings.scan_timeout_seconds,
                cpu_seconds=ctx.settings.resolved_scan_cpu_seconds,
                memory_limit_bytes=ctx.settings.scan_memory_limit_mib * 1024 * 1024,
            )
            if result.approved:
                kept[name] = (result.sanitized_path or path).read_bytes()
                continue
            withheld = True
            if result.block_code == KEY_IN_PIXELS and not key_kind:
                key_kind = str(result.findings[0].get("kind", "")) if result.findings else ""
    if key_kind:
        for name in PICTURES:
            kept.pop(name, None)
        article = "an" if key_kind[0].lower() in _ARTICLES else "a"
        return kept, (
            f"The screenshot and recording are not shown: the page showed what looks like "
            f"{article} {key_kind}."
        )
    if withheld:
        return (
            kept,
            "Some pictures of this preview are not shown: they did not pass the file checks.",
        )
    return kept, ""
