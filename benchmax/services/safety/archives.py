"""Source ZIPs, inspected in place: nothing is ever extracted to disk.

The central directory is treated as a claim, not a fact. Entry counts are read from the end
record before ``zipfile`` builds an object per entry; local headers are read to catch entries
that share or overlap bytes (the "overlapping files" bomb); and every entry is decompressed
as a stream with hard stops, so sizes and ratios are counted from real output rather than
from declared sizes that can lie.
"""

from __future__ import annotations

import re
import stat
import struct
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmax.services.safety.injection import injection_signals
from benchmax.services.safety.limits import SafetyLimits
from benchmax.services.safety.result import BlockedError
from benchmax.services.safety.secrets import (
    SecretFinding,
    find_secrets,
    find_secrets_json_aware,
    refusal,
)
from benchmax.services.safety.sniff import ARCHIVE_MAGIC
from benchmax.services.safety.text import looks_like_json

_CHUNK = 1024 * 1024
_END_RECORD = b"PK\x05\x06"
_END_RECORD_SEARCH = 22 + 65535
_LOCAL_HEADER = struct.Struct("<4s22xHH")
_LOCAL_SIGNATURE = b"PK\x03\x04"
_ENCRYPTED_FLAG = 0x1
_DRIVE = re.compile(r"[A-Za-z]:")
_ARCHIVE_SUFFIXES = frozenset({
    "zip", "jar", "war", "ear", "apk", "ipa", "whl", "egg", "nupkg", "tar", "gz", "tgz", "bz2",
    "tbz2", "xz", "txz", "zst", "lz", "lzma", "7z", "rar", "cab", "iso",
})  # fmt: skip
_TAR_MAGIC_OFFSET = 257
_MAX_NAME_IN_REASON = 80
_MAX_FINDINGS = 100


@dataclass
class ZipReport:
    entry_count: int = 0
    unpacked_bytes: int = 0
    # browser-web-v1 evaluates a ZIP only when it has index.html at its root.
    has_root_index_html: bool = False
    findings: list[dict[str, Any]] = field(default_factory=list)

    def metadata(self) -> dict[str, Any]:
        return {
            "entry_count": self.entry_count,
            "unpacked_bytes": self.unpacked_bytes,
            "has_root_index_html": self.has_root_index_html,
        }


def inspect_zip(path: Path, limits: SafetyLimits, label: str) -> ZipReport:
    packed_size = path.stat().st_size
    _check_declared_entry_count(path, packed_size, limits, label)
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
            _check_entries(infos, limits, label)
            _check_no_overlaps(path, infos, label)
            return _read_entries(archive, infos, packed_size, limits, label)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError):
        raise BlockedError(
            "zip_corrupt",
            f"{label} is not a readable ZIP archive: it may be truncated or damaged. Create "
            "the archive again and upload it.",
        ) from None
    except NotImplementedError:
        raise BlockedError(
            "zip_unsupported_compression",
            f"{label} uses a compression method we cannot read. Create it again with "
            "standard (deflate) compression.",
        ) from None


def _check_declared_entry_count(
    path: Path, packed_size: int, limits: SafetyLimits, label: str
) -> None:
    """Refuse an archive with too many entries before ``zipfile`` allocates one per entry.

    The 16-bit count saturates at 0xFFFF (ZIP64 then holds the real one), which is already
    more than any sensible limit, so saturation alone means "too many".
    """
    with path.open("rb") as file:
        file.seek(max(0, packed_size - _END_RECORD_SEARCH))
        tail = file.read()
    at = tail.rfind(_END_RECORD)
    if at < 0 or at + 22 > len(tail):
        return  # zipfile will report the archive as corrupt
    declared = int.from_bytes(tail[at + 10 : at + 12], "little")
    if declared > limits.zip_max_entries:
        raise _too_many_entries(label, limits)


def _too_many_entries(label: str, limits: SafetyLimits) -> BlockedError:
    return BlockedError(
        "zip_too_many_entries",
        f"{label} has more than {limits.zip_max_entries:,} files and folders. Remove "
        "dependencies and build output (node_modules, dist, .git) and try again.",
    )


def _shown(name: str) -> str:
    return name if len(name) <= _MAX_NAME_IN_REASON else name[: _MAX_NAME_IN_REASON - 1] + "…"


def _check_entries(infos: list[zipfile.ZipInfo], limits: SafetyLimits, label: str) -> None:
    if len(infos) > limits.zip_max_entries:
        raise _too_many_entries(label, limits)
    names: set[str] = set()
    declared_total = 0
    for info in infos:
        name = info.orig_filename
        problem = _entry_problem(info, name)
        if problem:
            code, why = problem
            raise BlockedError(code, f"{label} contains “{_shown(name)}”, {why}")
        if name in names:
            raise BlockedError(
                "zip_duplicate_entry",
                f"{label} lists “{_shown(name)}” twice. Create the archive again.",
            )
        names.add(name)
        if info.file_size > limits.zip_max_entry_bytes:
            raise _entry_too_large(label, name, limits)
        declared_total += info.file_size
    if declared_total > limits.zip_max_unpacked_bytes:
        raise _unpacked_too_large(label, limits)


def _entry_problem(info: zipfile.ZipInfo, name: str) -> tuple[str, str] | None:
    """``(code, the rest of a sentence)`` for the first rule this entry breaks, if any."""
    if any(ord(char) < 0x20 or char == "\x7f" for char in name):
        return "zip_bad_entry_name", "a name with control characters. Rename it."
    if "\\" in name:
        return "zip_backslash_path", (
            "a path with backslashes. Create the archive with a tool that writes / separators."
        )
    if name.startswith("/"):
        return "zip_absolute_path", "an absolute path. Archive paths must be relative."
    if _DRIVE.match(name):
        return "zip_drive_path", "a path with a drive letter. Archive paths must be relative."
    if ".." in name.split("/"):
        return "zip_path_traversal", "a path that climbs out of the archive with “..”."
    file_type = stat.S_IFMT(info.external_attr >> 16)
    if file_type == stat.S_IFLNK:
        return "zip_symlink", "which is a symbolic link. Replace it with the real file."
    if file_type not in (0, stat.S_IFREG, stat.S_IFDIR):
        return "zip_special_file", "which is not a regular file or folder. Remove it."
    if info.flag_bits & _ENCRYPTED_FLAG:
        return "zip_encrypted", "which is encrypted. Upload an archive without a password."
    if name.rstrip("/").rpartition(".")[2].lower() in _ARCHIVE_SUFFIXES and not info.is_dir():
        return "zip_nested_archive", "which is itself an archive. Unpack it into the ZIP instead."
    return None


def _check_no_overlaps(path: Path, infos: list[zipfile.ZipInfo], label: str) -> None:
    """Each entry's bytes must end before the next entry's local header begins."""
    previous_end = 0
    with path.open("rb") as file:
        for info in sorted(infos, key=lambda item: item.header_offset):
            if info.header_offset < previous_end:
                raise BlockedError(
                    "zip_overlapping_entries",
                    f"{label} has entries that share the same bytes, a trick used by ZIP "
                    "bombs. Create the archive again with a standard tool.",
                )
            file.seek(info.header_offset)
            header = file.read(_LOCAL_HEADER.size)
            if len(header) != _LOCAL_HEADER.size:
                raise zipfile.BadZipFile
            signature, name_length, extra_length = _LOCAL_HEADER.unpack(header)
            if signature != _LOCAL_SIGNATURE:
                raise zipfile.BadZipFile
            data_start = info.header_offset + _LOCAL_HEADER.size + name_length + extra_length
            previous_end = data_start + info.compress_size


def _read_entries(
    archive: zipfile.ZipFile,
    infos: list[zipfile.ZipInfo],
    packed_size: int,
    limits: SafetyLimits,
    label: str,
) -> ZipReport:
    report = ZipReport(entry_count=len(infos))
    secrets: list[tuple[str, SecretFinding]] = []
    ratio_cap = max(limits.zip_ratio_min_unpacked_bytes, limits.zip_max_ratio * packed_size)
    for info in infos:
        if info.is_dir():
            continue
        if info.filename.lower() == "index.html":
            report.has_root_index_html = True
        text = _read_entry(archive, info, report, ratio_cap, limits, label)
        if text is not None:
            _scan_text_entry(info.filename, text, report, secrets)
    if secrets:
        name, first = secrets[0]
        raise BlockedError(
            "secret_detected",
            refusal(first, f"“{_shown(name)}” in {label}", others=len(secrets) - 1),
            findings=[{**finding.as_dict(), "path": path} for path, finding in secrets],
        )
    return report


def _read_entry(
    archive: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    report: ZipReport,
    ratio_cap: int,
    limits: SafetyLimits,
    label: str,
) -> bytes | None:
    """Decompress one entry against every cap; return its bytes if it is text worth scanning."""
    entry_bytes = 0
    text_chunks: list[bytes] = []
    is_text = False
    for chunk in _stream(archive, info):
        if entry_bytes == 0:
            if _is_archive(chunk):
                raise BlockedError(
                    "zip_nested_archive",
                    f"{label} contains “{_shown(info.filename)}”, which is itself an archive. "
                    "Unpack it into the ZIP instead.",
                )
            # Binary entries (images, fonts) have no text to scan; NUL bytes give them away.
            is_text = b"\x00" not in chunk[:8192]
        entry_bytes += len(chunk)
        report.unpacked_bytes += len(chunk)
        if entry_bytes > limits.zip_max_entry_bytes:
            raise _entry_too_large(label, info.filename, limits)
        if report.unpacked_bytes > limits.zip_max_unpacked_bytes:
            raise _unpacked_too_large(label, limits)
        if report.unpacked_bytes > ratio_cap:
            raise BlockedError(
                "zip_ratio_too_high",
                f"{label} expands to more than {limits.zip_max_ratio} times its size, which "
                "is how ZIP bombs work. Remove large repetitive files and try again.",
            )
        if is_text:
            text_chunks.append(chunk)
    return b"".join(text_chunks) if is_text else None


def _stream(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> Iterator[bytes]:
    """Decompressed chunks of one entry; ``zipfile`` stops at the declared size and checks
    the CRC at the end, so a lying header surfaces as ``BadZipFile``."""
    with archive.open(info) as entry:
        while chunk := entry.read(_CHUNK):
            yield chunk


def _is_archive(head: bytes) -> bool:
    return head.startswith(ARCHIVE_MAGIC) or head[_TAR_MAGIC_OFFSET:].startswith(b"ustar")


def _scan_text_entry(
    name: str,
    data: bytes,
    report: ZipReport,
    secrets: list[tuple[str, SecretFinding]],
) -> None:
    # Source files are not always UTF-8; a lossy decode is fine for pattern matching.
    text = data.decode("utf-8", errors="replace")
    if len(secrets) < _MAX_FINDINGS:
        finder = find_secrets_json_aware if looks_like_json(name, text) else find_secrets
        secrets.extend((name, finding) for finding in finder(text))
    if len(report.findings) < _MAX_FINDINGS:
        report.findings.extend(
            {"type": "injection", **signal, "path": name} for signal in injection_signals(text)
        )


def _entry_too_large(label: str, name: str, limits: SafetyLimits) -> BlockedError:
    mib = limits.zip_max_entry_bytes / (1024 * 1024)
    return BlockedError(
        "zip_entry_too_large",
        f"{label} contains “{_shown(name)}”, which unpacks to more than {mib:g} MiB. Remove it "
        "or split it and try again.",
    )


def _unpacked_too_large(label: str, limits: SafetyLimits) -> BlockedError:
    mib = limits.zip_max_unpacked_bytes / (1024 * 1024)
    return BlockedError(
        "zip_unpacked_too_large",
        f"{label} unpacks to more than {mib:g} MiB. Remove build output and large data files "
        "and try again.",
    )
