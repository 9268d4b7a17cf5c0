"""Source ZIPs, inspected in place: nothing is ever extracted to disk.

The central directory is treated as a claim, not a fact. Entry counts are read from the end
record before ``zipfile`` builds an object per entry; local headers are read to catch entries
that share or overlap bytes (the "overlapping files" bomb) or that name themselves differently
from the directory; and every entry is decompressed as a stream with hard stops, so sizes and
ratios are counted from real output rather than from declared sizes that can lie.

Every byte an extractor could show is scanned for secrets: each entry's contents whatever
they look like (``readable``), entry names, comments and extra fields in both headers, and the
archive comment. Names are scanned before any rule can quote one in a reason. Extra fields
that carry a name (Info-ZIP Unicode Path) are names: some extractors use them instead of the
header's, so they obey the path rules and must agree with the header name.
"""

from __future__ import annotations

import re
import stat
import struct
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from benchmax.services.safety.embedded import holds_archive
from benchmax.services.safety.injection import injection_signals
from benchmax.services.safety.limits import SafetyLimits
from benchmax.services.safety.readable import readable_texts
from benchmax.services.safety.redact import redact
from benchmax.services.safety.result import BlockedError
from benchmax.services.safety.secrets import SecretFinding, find_secrets, refusal
from benchmax.services.safety.text import looks_like_json

_CHUNK = 1024 * 1024
_END_RECORD = b"PK\x05\x06"
_END_RECORD_SEARCH = 22 + 65535
_LOCAL_HEADER = struct.Struct("<4s22xHH")
_LOCAL_SIGNATURE = b"PK\x03\x04"
_ENCRYPTED_FLAG = 0x1
_UTF8_FLAG = 0x800
_DATA_DESCRIPTOR_FLAG = 0x8
# CRC and sizes, with or without the optional signature, with 4- or 8-byte sizes.
_DESCRIPTOR_SIZES = frozenset({12, 16, 20, 24})
_EXTRA_HEADER = struct.Struct("<HH")
_UNICODE_PATH = 0x7075
_UNICODE_COMMENT = 0x6375
# Version (1 byte) and the CRC-32 of the header field it stands for (4 bytes), then UTF-8.
_UNICODE_FIELD_PREFIX = 5
_DRIVE = re.compile(r"[A-Za-z]:")
_ARCHIVE_SUFFIXES = frozenset({
    "zip", "jar", "war", "ear", "apk", "ipa", "whl", "egg", "nupkg", "tar", "gz", "tgz", "bz2",
    "tbz2", "xz", "txz", "zst", "lz", "lzma", "7z", "rar", "cab", "iso",
})  # fmt: skip
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
            if len(infos) > limits.zip_max_entries:
                raise _too_many_entries(label, limits)
            locals_ = _check_local_headers(path, infos, archive.start_dir, label)
            local_extras = [local.extra for local in locals_]
            secrets = _Secrets(label)
            secrets.scan_metadata(archive, infos, local_extras)
            secrets.raise_if_found()
            _check_entries(infos, local_extras, limits, label)
            with path.open("rb") as file:
                return _read_entries(
                    archive, file, zip(infos, locals_, strict=True), packed_size, limits, secrets
                )
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
    comment_length = int.from_bytes(tail[at + 20 : at + 22], "little")
    # Nothing may follow the end record; a comment longer than the file is zipfile's to find.
    _check_gap(max(0, len(tail) - (at + 22 + comment_length)), 0, label)


def _too_many_entries(label: str, limits: SafetyLimits) -> BlockedError:
    return BlockedError(
        "zip_too_many_entries",
        f"{label} has more than {limits.zip_max_entries:,} files and folders. Remove "
        "dependencies and build output (node_modules, dist, .git) and try again.",
    )


def _shown(name: str) -> str:
    """An entry's name as a reason quotes it: derived from the contributor's bytes, so any
    credential in it is replaced by its marker before the name is cut to length."""
    return redact(name, clip=_MAX_NAME_IN_REASON).value


def _check_entries(
    infos: list[zipfile.ZipInfo],
    local_extras: list[bytes],
    limits: SafetyLimits,
    label: str,
) -> None:
    names: set[str] = set()
    declared_total = 0
    for info, local_extra in zip(infos, local_extras, strict=True):
        name = info.orig_filename
        problem = _entry_problem(info, name)
        if problem:
            code, why = problem
            raise BlockedError(code, f"{label} contains “{_shown(name)}”, {why}")
        for extra in (info.extra, local_extra):
            _check_unicode_path(info, name, extra, label)
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


def _check_unicode_path(info: zipfile.ZipInfo, name: str, extra: bytes, label: str) -> None:
    """A Unicode Path field is the name extractors such as 7-Zip and unzip actually use."""
    for field_id, data in _extra_fields(extra):
        if field_id != _UNICODE_PATH:
            continue
        unicode_name = data[_UNICODE_FIELD_PREFIX:].decode("utf-8", "replace")
        problem = _entry_problem(info, unicode_name)
        if problem:
            code, why = problem
            raise BlockedError(
                code, f"{label} contains “{_shown(name)}”, whose Unicode name has {why}"
            )
        if unicode_name not in _header_name_readings(info):
            raise BlockedError(
                "zip_name_mismatch",
                f"{label} contains “{_shown(name)}”, which carries a second, different name "
                "that some tools would extract instead. Create the archive again with a "
                "standard tool.",
            )


def _header_name_readings(info: zipfile.ZipInfo) -> tuple[str, ...]:
    """The header name as ``zipfile`` read it, and as UTF-8 when its bytes are UTF-8.

    Many tools write UTF-8 names without setting the UTF-8 flag, so ``zipfile`` shows them as
    code page 437 while the Unicode Path field (rightly) holds the UTF-8 reading.
    """
    if info.flag_bits & _UTF8_FLAG:
        return (info.orig_filename,)
    raw = info.orig_filename.encode("cp437")
    try:
        return (info.orig_filename, raw.decode("utf-8"))
    except UnicodeDecodeError:
        return (info.orig_filename,)


def _extra_fields(extra: bytes) -> Iterator[tuple[int, bytes]]:
    at = 0
    while at + _EXTRA_HEADER.size <= len(extra):
        field_id, size = _EXTRA_HEADER.unpack_from(extra, at)
        at += _EXTRA_HEADER.size
        yield field_id, extra[at : at + size]
        at += size


def _raw_name(info: zipfile.ZipInfo) -> bytes:
    return info.orig_filename.encode("utf-8" if info.flag_bits & _UTF8_FLAG else "cp437")


@dataclass(frozen=True, slots=True)
class _LocalHeader:
    extra: bytes
    data_start: int


def _check_local_headers(
    path: Path, infos: list[zipfile.ZipInfo], directory_start: int, label: str
) -> list[_LocalHeader]:
    """Each entry's bytes must end exactly where the next entry's local header begins (or
    the central directory, after the last), and each local header must name the entry as
    the directory does (streaming extractors read only local headers). Bytes between
    entries belong to no file, so no scan of files would see them: they block the archive.
    Returns what each local header says, in ``infos`` order."""
    previous_end, previous_flags = 0, 0
    local_headers: dict[int, _LocalHeader] = {}
    with path.open("rb") as file:
        for info in sorted(infos, key=lambda item: item.header_offset):
            if info.header_offset < previous_end:
                raise BlockedError(
                    "zip_overlapping_entries",
                    f"{label} has entries that share the same bytes, a trick used by ZIP "
                    "bombs. Create the archive again with a standard tool.",
                )
            _check_gap(info.header_offset - previous_end, previous_flags, label)
            file.seek(info.header_offset)
            header = file.read(_LOCAL_HEADER.size)
            if len(header) != _LOCAL_HEADER.size:
                raise zipfile.BadZipFile
            signature, name_length, extra_length = _LOCAL_HEADER.unpack(header)
            if signature != _LOCAL_SIGNATURE:
                raise zipfile.BadZipFile
            if file.read(name_length) != _raw_name(info):
                raise BlockedError(
                    "zip_name_mismatch",
                    f"{label} names one of its files differently in two places, so tools "
                    "would disagree on what it contains. Create the archive again with a "
                    "standard tool.",
                )
            extra = file.read(extra_length)
            data_start = info.header_offset + _LOCAL_HEADER.size + name_length + extra_length
            local_headers[id(info)] = _LocalHeader(extra, data_start)
            previous_end, previous_flags = data_start + info.compress_size, info.flag_bits
    _check_gap(directory_start - previous_end, previous_flags, label)
    return [local_headers[id(info)] for info in infos]


def _check_gap(gap: int, previous_flags: int, label: str) -> None:
    """Only a data descriptor (12 to 24 bytes, when its entry says it has one) may sit
    between one entry's data and what follows it."""
    if gap == 0 or (previous_flags & _DATA_DESCRIPTOR_FLAG and gap in _DESCRIPTOR_SIZES):
        return
    if gap < 0:
        raise zipfile.BadZipFile
    raise BlockedError(
        "zip_hidden_data",
        f"{label} holds data that belongs to none of its files, where a scan of the files "
        "would never look. Create the archive again with a standard tool.",
    )


def _read_entries(
    archive: zipfile.ZipFile,
    file: BinaryIO,
    entries: Iterable[tuple[zipfile.ZipInfo, _LocalHeader]],
    packed_size: int,
    limits: SafetyLimits,
    secrets: _Secrets,
) -> ZipReport:
    label = secrets.label
    report = ZipReport(entry_count=len(archive.infolist()))
    ratio_cap = max(limits.zip_ratio_min_unpacked_bytes, limits.zip_max_ratio * packed_size)
    for info, local in entries:
        if info.is_dir():
            continue
        if info.filename.lower() == "index.html":
            report.has_root_index_html = True
        chunks = _stream(archive, file, info, local.data_start)
        data = _read_entry(chunks, info, report, ratio_cap, limits, label)
        if holds_archive(data):
            raise BlockedError(
                "zip_nested_archive",
                f"{label} contains “{_shown(info.filename)}”, which is or holds an archive or "
                "compressed stream. Unpack it into the ZIP instead.",
            )
        _scan_text_entry(info.filename, data, report, secrets)
    secrets.raise_if_found()
    return report


def _read_entry(
    stream: Iterator[bytes],
    info: zipfile.ZipInfo,
    report: ZipReport,
    ratio_cap: int,
    limits: SafetyLimits,
    label: str,
) -> bytes:
    """Decompress one entry against every cap and return its bytes."""
    entry_bytes = 0
    chunks: list[bytes] = []
    for chunk in stream:
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
        chunks.append(chunk)
    data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    # Sizes and CRCs that lie surface as a corrupt archive, as zipfile would report them.
    if entry_bytes != info.file_size or zlib.crc32(data) != info.CRC:
        raise zipfile.BadZipFile
    return data


def _stream(
    archive: zipfile.ZipFile, file: BinaryIO, info: zipfile.ZipInfo, data_start: int
) -> Iterator[bytes]:
    """Decompressed chunks of one entry, at most ``_CHUNK`` bytes each however small the
    input, so a bomb is stopped by the caller's caps before it is inflated.

    Stored and deflated entries (nearly all) are read straight from the file: that skips
    ``zipfile``'s per-read overhead, and a deflate stream must end exactly at the entry's
    end, so nothing can hide after it in bytes no scan would otherwise see. Other methods
    go through ``zipfile``.
    """
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        with archive.open(info) as entry:
            while chunk := entry.read(_CHUNK):
                yield chunk
        return
    file.seek(data_start)
    packed = file.read(info.compress_size)
    if len(packed) != info.compress_size:
        raise zipfile.BadZipFile
    if info.compress_type == zipfile.ZIP_STORED:
        for at in range(0, len(packed), _CHUNK):
            yield packed[at : at + _CHUNK]
        return
    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
    while not inflater.eof:
        chunk = inflater.decompress(packed, _CHUNK)
        if not chunk and not inflater.eof:
            raise zipfile.BadZipFile  # the stream stops short of its end
        packed = inflater.unconsumed_tail
        yield chunk
    if inflater.unused_data or packed:
        raise zipfile.BadZipFile


class _Secrets:
    """Secrets found so far in one archive, with where each was found.

    "Where" never quotes a name that holds a secret: a hit in a name is reported by the
    entry's position, and the findings stored with the verdict carry no name at all then.
    """

    def __init__(self, label: str):
        self.label = label
        self._found: list[tuple[str, dict[str, Any], SecretFinding]] = []

    def add(self, where: str, path: dict[str, Any], findings: list[SecretFinding]) -> None:
        room = _MAX_FINDINGS - len(self._found)
        self._found.extend((where, path, finding) for finding in findings[:room])

    def scan_metadata(
        self, archive: zipfile.ZipFile, infos: list[zipfile.ZipInfo], local_extras: list[bytes]
    ) -> None:
        # Names hold no line breaks once the path rules pass, but they are scanned before
        # those rules run; one name per line keeps line numbers pointing at entries.
        names = "\n".join(info.orig_filename.replace("\n", " ") for info in infos)
        for finding in find_secrets(names):
            number = finding.line
            self.add(
                f"the name of file {number} in {self.label}",
                {"entry": number, "field": "name"},
                [SecretFinding(finding.code, finding.kind, 1, finding.column)],
            )
        for index, (info, local_extra) in enumerate(zip(infos, local_extras, strict=True), 1):
            pieces = (
                ("comment", info.comment),
                ("extra field", info.extra),
                ("local extra field", local_extra),
            )
            for part, data in pieces:
                if data:
                    self._scan_bytes(
                        data,
                        f"the {part} of file {index} in {self.label}",
                        {"entry": index, "field": part},
                    )
        if archive.comment:
            self._scan_bytes(archive.comment, f"the comment of {self.label}", {"field": "comment"})

    def _scan_bytes(self, data: bytes, where: str, path: dict[str, Any]) -> None:
        self.add(where, path, readable_texts(data).secrets())

    def raise_if_found(self) -> None:
        if not self._found:
            return
        where, _, first = self._found[0]
        raise BlockedError(
            "secret_detected",
            refusal(first, where, others=len(self._found) - 1),
            findings=[{**finding.as_dict(), **path} for _, path, finding in self._found],
        )


def _scan_text_entry(name: str, data: bytes, report: ZipReport, secrets: _Secrets) -> None:
    # Source files are not always UTF-8, and an entry that looks binary may still hold a
    # key: every readable view is scanned, and the first with a hit reports it. JSON entries
    # are also matched with their string escapes decoded.
    readable = readable_texts(data)
    found = readable.secrets(json_aware=looks_like_json(name, readable.texts[0]))
    secrets.add(f"“{_shown(name)}” in {secrets.label}", {"path": redact(name).value}, found)
    if readable.prose is not None and len(report.findings) < _MAX_FINDINGS:
        report.findings.extend(
            {"type": "injection", **signal, "path": name}
            for signal in injection_signals(readable.prose)
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
