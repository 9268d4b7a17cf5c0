"""``scan_file``: one quarantined file in, one verdict out.

The order is cheap-to-expensive: name, size, type from the first bytes, then the per-kind
check that reads the whole file. Every refusal is a ``BlockedError`` raised by a check and
turned into a blocked ``ScanResult`` here, so no check ever needs to build a result itself.
Anything else that goes wrong (a bug, running out of memory) propagates: the job retries it
and eventually shows "Processing failed", which is the right outcome for our own faults.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from benchmax.file_types import extension_kinds
from benchmax.services.safety.archives import inspect_zip
from benchmax.services.safety.filenames import FilenameError, normalise_filename
from benchmax.services.safety.images import sanitise_image
from benchmax.services.safety.injection import injection_signals
from benchmax.services.safety.limits import MIB, SafetyLimits
from benchmax.services.safety.pixel_text import check_pixels, sample_frames
from benchmax.services.safety.result import BlockedError, Kind, ScanResult
from benchmax.services.safety.secrets import find_secrets, find_secrets_json_aware, refusal
from benchmax.services.safety.sniff import (
    HEAD_BYTES,
    HTML,
    OTHER_ARCHIVE,
    OTHER_VIDEO,
    SVG,
    sniff_kind,
)
from benchmax.services.safety.text import JSON_CONTENT_TYPES, check_structure, decode_utf8
from benchmax.services.safety.video import check_video
from benchmax.services.safety.video_frames import video_frames
from benchmax.services.safety.video_rebuild import rebuild_video

_HASH_CHUNK = 1024 * 1024
SCAN_TOO_EXPENSIVE = "scan_too_expensive"
# What a name's extension promises. Unknown extensions promise nothing; the bytes decide.
_EXTENSION_KINDS: dict[str, Kind] = extension_kinds()
_KIND_NOUNS = {"image": "an image", "video": "a video", "text": "text", "source": "a ZIP archive"}
_REFUSED_TYPES = {
    HTML: (
        "type_html_not_allowed",
        "is an HTML page, which BenchMax never serves. Put it in a ZIP as index.html for the "
        "automated preview, or upload a screenshot.",
    ),
    SVG: (
        "type_svg_not_allowed",
        "is an SVG image, which can carry scripts. Export it as PNG and upload that.",
    ),
    OTHER_ARCHIVE: (
        "type_archive_not_zip",
        "is an archive in a format other than ZIP. Repack it as a .zip file.",
    ),
    OTHER_VIDEO: (
        "type_video_not_allowed",
        "is a video format we do not accept. Convert it to MP4 or WebM.",
    ),
}
_OTHER_TYPE = (
    "type_not_allowed",
    "is not a type BenchMax accepts. Upload PNG, JPEG, WebP or GIF images, MP4 or WebM "
    "video, UTF-8 text, Markdown or JSON, or a ZIP of source.",
)


def scan_file(path: Path, original_name: str, limits: SafetyLimits) -> ScanResult:
    try:
        safe_name = normalise_filename(original_name, limits.filename_max_chars)
    except FilenameError as error:
        return ScanResult(verdict="blocked", block_code=error.code, block_reason=error.message)
    label = f"“{safe_name}”"
    size = path.stat().st_size
    with path.open("rb") as file:
        head = file.read(HEAD_BYTES)
    kind, content_type = sniff_kind(head, safe_name)
    result = ScanResult(
        verdict="approved",
        kind=kind,
        content_type=content_type,
        safe_name=safe_name,
        size_bytes=size,
    )
    try:
        _check_type(kind, content_type, size, safe_name, label, limits)
        if kind == "image":
            _scan_image(path, result, limits, label)
        elif kind == "video":
            _scan_video(path, result, limits, label)
        elif kind == "text":
            _scan_text(path, result, label)
        else:
            report = inspect_zip(path, limits, label)
            result.findings = report.findings
            result.metadata = report.metadata()
            result.sha256 = _sha256_of(path)
    except BlockedError as error:
        if result.sanitized_path is not None:
            result.sanitized_path.unlink(missing_ok=True)
        return ScanResult(
            verdict="blocked",
            kind=kind,
            content_type=content_type,
            safe_name=safe_name,
            size_bytes=size,
            block_code=error.code,
            block_reason=error.reason,
            findings=error.findings,
        )
    return result


def too_expensive(original_name: str, limits: SafetyLimits) -> ScanResult:
    """The verdict on a file whose scan ran out of its CPU or memory budget.

    Such a file costs the same on every attempt, so retrying it would only delay the same
    outcome (and hold a worker each time); it is blocked with a reason instead.
    """
    try:
        safe_name = normalise_filename(original_name, limits.filename_max_chars)
    except FilenameError:
        safe_name = None
    label = f"“{safe_name}”" if safe_name else "This file"
    return ScanResult(
        verdict="blocked",
        safe_name=safe_name,
        block_code=SCAN_TOO_EXPENSIVE,
        block_reason=(
            f"{label} is too expensive to check: its safety scan needed more time or memory "
            "than a file may use. Make it smaller or simpler (fewer frames or pixels, fewer or "
            "smaller files in a ZIP) and upload it again."
        ),
    )


def check_test_totals(file_count: int, total_bytes: int, limits: SafetyLimits) -> None:
    """Raise ``BlockedError`` when a Test as a whole has too many or too large files."""
    if file_count > limits.test_max_files:
        raise BlockedError(
            "test_too_many_files",
            f"A Test can have at most {limits.test_max_files} files. Remove some, or combine "
            "source files into one ZIP.",
        )
    if total_bytes > limits.test_max_bytes:
        raise BlockedError(
            "test_too_large",
            f"A Test's files can add up to at most {_mib(limits.test_max_bytes)}. Remove or "
            "shrink some of them.",
        )


def _check_type(
    kind: Kind | None,
    content_type: str,
    size: int,
    safe_name: str,
    label: str,
    limits: SafetyLimits,
) -> None:
    if size == 0:
        raise BlockedError("file_empty", f"{label} is empty. Upload the file again.")
    if kind is None:
        code, why = _REFUSED_TYPES.get(content_type, _OTHER_TYPE)
        raise BlockedError(code, f"{label} {why}")
    extension = safe_name.rpartition(".")[2].lower() if "." in safe_name else ""
    promised = _EXTENSION_KINDS.get(extension)
    if promised is not None and promised != kind:
        raise BlockedError(
            "type_mismatch",
            f"{label} is named like {_KIND_NOUNS[promised]} but its contents are "
            f"{_KIND_NOUNS[kind]}. Rename it to match, or upload the right file.",
        )
    cap = {
        "image": limits.image_max_bytes,
        "video": limits.video_max_bytes,
        "text": limits.text_max_bytes,
        "source": limits.zip_max_bytes,
    }[kind]
    if size > cap:
        raise BlockedError(
            "file_too_large",
            f"{label} is {_mib(size)}; {_KIND_NOUNS[kind]} file can be at most {_mib(cap)}. "
            "Make it smaller and upload it again.",
        )


def _scan_image(path: Path, result: ScanResult, limits: SafetyLimits, label: str) -> None:
    image = sanitise_image(path, result.content_type, limits, label)
    result.sanitized_path = image.path
    result.width, result.height = image.width, image.height
    check_pixels(sample_frames(image.frames, limits.ocr_max_frames), label, limits)
    result.size_bytes = image.path.stat().st_size
    result.sha256 = _sha256_of(image.path)


def _scan_video(path: Path, result: ScanResult, limits: SafetyLimits, label: str) -> None:
    check_video(path, result.content_type, label)
    rebuilt = rebuild_video(path, result.content_type, label)
    result.sanitized_path = rebuilt
    # The copy is what gets served: it is walked and scanned again, then its frames are read.
    check_video(rebuilt, result.content_type, label)
    check_pixels(video_frames(rebuilt, limits), label, limits)
    result.size_bytes = rebuilt.stat().st_size
    result.sha256 = _sha256_of(rebuilt)


def _scan_text(path: Path, result: ScanResult, label: str) -> None:
    # Bounded by text_max_bytes, already checked; JSON has to be parsed whole anyway.
    data = path.read_bytes()
    text = decode_utf8(data, label)
    check_structure(text, result.content_type, label)
    is_json = result.content_type in JSON_CONTENT_TYPES
    secrets = find_secrets_json_aware(text) if is_json else find_secrets(text)
    if secrets:
        raise BlockedError(
            "secret_detected",
            refusal(secrets[0], label, others=len(secrets) - 1),
            findings=[finding.as_dict() for finding in secrets],
        )
    result.findings = [{"type": "injection", **signal} for signal in injection_signals(text)]
    result.sha256 = hashlib.sha256(data).hexdigest()


def _sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(_HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _mib(size: int) -> str:
    return f"{size / MIB:.1f} MiB" if size < 1024 * MIB else f"{size / (1024 * MIB):.1f} GiB"
