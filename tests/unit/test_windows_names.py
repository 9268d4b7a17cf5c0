"""Windows device names and trailing dots or spaces never survive into a stored or served name.

Every device name is tried in every case pattern, with and without one or more extensions,
with the spaces and dots Windows ignores, through both the stored-name rule and the
``Content-Disposition`` name. The oracle below is written from Windows' rules on its own, not
from the code under test.
"""

from __future__ import annotations

import itertools
import re

import pytest

from benchmax.models import EvidenceKind
from benchmax.services.safety import normalise_filename
from benchmax.windows_names import DEVICE_NAMES, defuse_device_name, is_device_name
from usercontent_service.headers import download_name

BASES = ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "CLOCK$"] + [
    f"{port}{digit}" for port in ("COM", "LPT") for digit in "0123456789¹²³"
]
TAILS = ["", ".txt", ".TXT", ".tar.gz", ".", " ", "  .txt", " . ", "..", ".png.", ". txt"]
# The Windows rule: the name up to its first dot, less trailing spaces, is a device.
_ORACLE = re.compile(r"(CON|PRN|AUX|NUL|CONIN\$|CONOUT\$|CLOCK\$|(COM|LPT)[0-9¹²³]) *", re.I)
KINDS = {
    EvidenceKind.TEXT: "text/plain; charset=utf-8",
    EvidenceKind.IMAGE: "image/png",
    EvidenceKind.VIDEO: "video/webm",
    EvidenceKind.SOURCE: "application/octet-stream",
}


def _oracle_says_device(name: str) -> bool:
    return bool(_ORACLE.fullmatch(name.split(".", 1)[0]))


def _cases(base: str) -> set[str]:
    """lower, UPPER, Title and every other upper/lower mix of ``base``."""
    pairs = [(c.lower(), c.upper()) if c.isalpha() else (c,) for c in base]
    return {"".join(chars) for chars in itertools.product(*pairs)}


ALL_NAMES = sorted({case + tail for base in BASES for case in _cases(base) for tail in TAILS})


def test_the_list_is_complete() -> None:
    assert set(BASES) == DEVICE_NAMES
    assert len(ALL_NAMES) > 3000


def test_every_device_name_is_recognised() -> None:
    for name in ALL_NAMES:
        assert is_device_name(name) is _oracle_says_device(name), name


def test_stored_names_are_never_devices_nor_end_in_dots_or_spaces() -> None:
    for raw in ALL_NAMES:
        stored = normalise_filename(raw)
        assert not _oracle_says_device(stored), (raw, stored)
        assert not stored.endswith((".", " ")), (raw, stored)
        assert stored.upper().startswith(raw.split(".")[0].rstrip(" ").upper()), (raw, stored)


@pytest.mark.parametrize("kind", list(KINDS))
def test_download_names_are_never_devices(kind: EvidenceKind) -> None:
    for raw in ALL_NAMES:
        served = download_name(kind, KINDS[kind], normalise_filename(raw), "abc")
        also = download_name(kind, KINDS[kind], raw, "abc")  # rows written before this rule
        for name in (served, also):
            assert not _oracle_says_device(name), (raw, name)
            assert re.fullmatch(r"[A-Za-z0-9_-]+\.[a-z0-9]+", name), (raw, name)


@pytest.mark.parametrize(
    ("raw", "stored", "served"),
    [
        ("CON.txt", "CON_.txt", "CON_.txt"),
        ("nul", "nul_", "nul_.txt"),
        ("Com1 .log", "Com1_.log", "Com1_.log"),
        ("lpt9.tar.gz.txt", "lpt9_.tar.gz.txt", "lpt9__tar_gz.txt"),
        ("COM¹.txt", "COM¹_.txt", "COM.txt"),
        ("aux...", "aux_", "aux_.txt"),
        ("  prn  ", "prn_", "prn_.txt"),
        # The served name is ASCII only: what is left after that must be checked again.
        ("LPT1¹.txt", "LPT1¹.txt", "LPT1_.txt"),
        ("CON-ROD.txt", "CON-ROD.txt", "CON-ROD.txt"),
        ("console.txt", "console.txt", "console.txt"),
        ("COM10.txt", "COM10.txt", "COM10.txt"),
        ("my.CON", "my.CON", "my_CON.txt"),
        ("report. .txt", "report. .txt", "report.txt"),
    ],
)
def test_examples(raw: str, stored: str, served: str) -> None:
    assert normalise_filename(raw) == stored
    assert download_name(EvidenceKind.TEXT, KINDS[EvidenceKind.TEXT], stored, "abc") == served


def test_a_capped_device_name_stays_within_the_cap() -> None:
    for raw, cap in itertools.product(["CON", "con.txt", "COM1.tar.gz", "nul.x.y"], range(3, 12)):
        stored = normalise_filename(raw, max_chars=cap)
        assert stored, (raw, cap)
        assert len(stored) <= cap, (raw, cap, stored)
        assert not _oracle_says_device(stored), (raw, cap, stored)
    assert defuse_device_name("readme.txt") == "readme.txt"
