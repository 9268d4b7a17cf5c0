"""Reading the prompt, output and settings from a file or stdin, bounded.

A text field is read into memory before it is sent, so an endless or huge source (``/dev/zero``,
a mistaken log, a runaway pipe) must end in a clear refusal, never in the process eating the
machine's memory: only regular files are opened, and at most one character past the cap is
read. The server has its own, lower, per-field limits and says them; the cap here only has to
be above every one of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from benchmax_client.errors import ConfigError

MAX_CHARS = 2_000_000


def _bounded(source: TextIO, what: str, where: str) -> str:
    text = source.read(MAX_CHARS + 1)
    if len(text) > MAX_CHARS:
        raise ConfigError(
            f"The {what} from {where} is over {MAX_CHARS:,} characters, more than any text "
            "field takes. Attach a long result as a file with --file."
        )
    return text


def read_text(path: str, what: str, stdin: TextIO) -> str:
    """The text of ``path`` (``-`` is stdin), or ``ConfigError`` saying why it cannot be."""
    if path == "-":
        return _bounded(stdin, what, "stdin")
    file = Path(path)
    if not file.is_file():
        reason = (
            "it is a folder"
            if file.is_dir()
            else "it is not a regular file"
            if file.exists()
            else "it does not exist"
        )
        raise ConfigError(f"Cannot read the {what} from {path}: {reason}.")
    try:
        with file.open(encoding="utf-8") as handle:
            return _bounded(handle, what, path)
    except UnicodeDecodeError:
        raise ConfigError(
            f"Cannot read the {what} from {path}: it is not UTF-8 text. Send binary results as "
            "evidence with --file."
        ) from None
    except OSError as error:
        raise ConfigError(f"Cannot read the {what} from {path}: {error.strerror}.") from None
