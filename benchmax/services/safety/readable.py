"""The texts a reader could get out of bytes, whatever the bytes claim to be.

A file is not "binary" because its first bytes look binary: a key after a NUL byte, or one
written by Windows PowerShell as UTF-16, is as readable as one in plain UTF-8. So the secret
scanner looks at every view a reader could take of the bytes:

- UTF-8, with undecodable bytes replaced (one "?" cannot join two halves of a key);
- when there is any NUL byte: the bytes with every NUL removed, which turns ASCII written as
  UTF-16 (LE or BE, aligned or not, BOM or not) back into ASCII, and also undoes a key
  interleaved with NULs by hand;
- when the bytes look like UTF-16 text (a BOM, or NULs on one side of most byte pairs):
  a real UTF-16 decode, so non-ASCII tricks (zero-width characters, fullwidth letters) in
  UTF-16 are normalised like those in UTF-8.

Each view is a C-speed decode; text without NUL bytes (all ordinary source and logs) costs
one decode, exactly as before.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

import re2

from benchmax.services.safety.secrets import SecretFinding, find_secrets, find_secrets_json_aware

# Every token-shaped secret is at least 20 characters; keyword rules need their keyword on
# the same run, which printable runs keep.
_MIN_RUN = 20
_PRINTABLE_RUN = rb"[\t\n\r\x20-\x7e]{%d,}" % _MIN_RUN
_RUN_CHUNK = 1024 * 1024
# What a run longer than a chunk keeps when it is flushed, so a key across the seam is whole
# in the next text.
_RUN_OVERLAP = 4096
_UTF16_BOMS = ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))
# Enough byte pairs to tell UTF-16 from binary that merely has NULs.
_UTF16_SAMPLE = 64 * 1024


@dataclass(frozen=True, slots=True)
class Readable:
    texts: list[str]
    # The view prompt-injection signals are read from, when the bytes are text at all.
    # Binary bytes decoded leniently look like invisible characters and stray words.
    prose: str | None

    def secrets(self, *, json_aware: bool = False) -> list[SecretFinding]:
        """The findings of the first view that has any (the views overlap, so one is enough,
        and its line numbers are its own); ``json_aware`` also decodes JSON string escapes."""
        finder = find_secrets_json_aware if json_aware else find_secrets
        for text in self.texts:
            if found := finder(text):
                return found
        return []


def readable_texts(data: bytes) -> Readable:
    utf8 = data.decode("utf-8", "replace")
    if b"\x00" not in data:
        return Readable([utf8], utf8)
    texts = [utf8, data.replace(b"\x00", b"").decode("utf-8", "replace")]
    encoding = utf16_encoding(data)
    if encoding is None:
        return Readable(texts, None)
    utf16 = data.decode(encoding, "replace")
    texts.append(utf16)
    return Readable(texts, utf16)


def utf16_encoding(data: bytes) -> str | None:
    """``utf-16-le``/``utf-16-be`` when ``data`` reads as UTF-16 text, else None."""
    for bom, encoding in _UTF16_BOMS:
        if data.startswith(bom):
            return encoding
    sample = data[:_UTF16_SAMPLE]
    pairs = len(sample) // 2
    if pairs < 2:
        return None
    even, odd = sample[0::2].count(0), sample[1::2].count(0)
    # Latin-script UTF-16 has a NUL in nearly every pair, always on the same side.
    if odd * 10 >= pairs * 7 and even * 10 <= pairs:
        return "utf-16-le"
    if even * 10 >= pairs * 7 and odd * 10 <= pairs:
        return "utf-16-be"
    return None


def _run_pattern() -> re2._Regexp:
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1  # plain bytes in, plain bytes compared
    return re2.compile(_PRINTABLE_RUN, options)


_RUNS = _run_pattern()


def printable_runs(file: BinaryIO) -> Iterator[str]:
    """Every run of 20 or more printable ASCII characters in ``file``, read in chunks.

    For media payloads, which are too large to decode every way and which hold no text of
    their own: a plainly written key in them is still found. A run that reaches the end of a
    chunk is carried into the next, so a chunk boundary never splits one.
    """
    carry = b""
    while chunk := file.read(_RUN_CHUNK):
        data = carry + chunk
        carry = b""
        for match in _RUNS.finditer(data):
            if match.end() == len(data):
                carry = match.group()
                if len(carry) > _RUN_CHUNK:
                    yield carry.decode("ascii")
                    carry = carry[-_RUN_OVERLAP:]
            else:
                yield match.group().decode("ascii")
    if len(carry) >= _MIN_RUN:
        yield carry.decode("ascii")
