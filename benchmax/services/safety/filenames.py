"""Turning a contributor's file name into one that is safe to store, show and download.

The name never decides a file's type (the bytes do); it is only a label, so it is normalised
rather than trusted: one Unicode form, no directories, nothing invisible, a bounded length,
no trailing dots or spaces and no Windows device name.
"""

from __future__ import annotations

import unicodedata

from benchmax.services.safety.limits import SafetyLimits
from benchmax.services.safety.text_fields import check_text_field
from benchmax.windows_names import defuse_device_name, is_device_name

DEFAULT_MAX_CHARS = SafetyLimits().filename_max_chars
# Longer "extensions" are more likely part of the name than a type suffix worth keeping.
_MAX_EXTENSION_CHARS = 16
# Characters Windows refuses in file names; replaced so downloads save everywhere.
_RESERVED = str.maketrans(dict.fromkeys('<>:"|?*', "_"))


class FilenameError(ValueError):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def normalise_filename(name: str, max_chars: int = DEFAULT_MAX_CHARS) -> str:
    """Return the stored form of ``name`` or raise ``FilenameError`` saying what to fix.

    Control and format characters are refused rather than dropped: a right-to-left override
    can make ``evil.exe`` read as ``exe.live``, and silently "fixing" it would hide that.
    A name holding a credential is refused too, checked whole (directories included), because
    the name as uploaded is kept beside the safe one.
    """
    problem = check_text_field("file name", name)
    if problem is not None:
        raise FilenameError("secret_detected", problem)
    name = unicodedata.normalize("NFC", name)
    # Browsers and zip tools send Windows paths too, so both separators count.
    name = name.replace("\\", "/").rsplit("/", 1)[-1].strip()
    if any(unicodedata.category(char) in ("Cc", "Cf") for char in name):
        raise FilenameError(
            "filename_control_chars",
            "The file name contains control or invisible characters. Rename the file and "
            "upload it again.",
        )
    if "." in name and not name.strip(". "):
        raise FilenameError("filename_dots_only", "A file name cannot be only dots.")
    # Leading dots would make a hidden file; trailing dots and spaces vanish on Windows.
    name = name.strip(". ").translate(_RESERVED)
    if not name:
        raise FilenameError("filename_empty", "The file has no name. Rename it and try again.")
    name = _cap_length(name, max_chars)
    if is_device_name(name):
        # A Windows device name (CON.txt, nul, COM¹…) cannot be saved as a file there.
        name = defuse_device_name(_cap_length(name, max_chars - 1))
    return name


def _cap_length(name: str, max_chars: int) -> str:
    if len(name) <= max_chars:
        return name
    stem, dot, extension = name.rpartition(".")
    # Keep the extension only when it fits with at least one character of stem.
    if not dot or not stem or not 0 < len(extension) <= min(_MAX_EXTENSION_CHARS, max_chars - 2):
        return name[:max_chars].rstrip(". ")
    return stem[: max_chars - len(extension) - 1].rstrip(". ") + "." + extension
