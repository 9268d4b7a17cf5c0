"""Every list of accepted file types derives from one table (benchmax/file_types.py).

The scanner's sniffing and extension promises, the wizard's file picker and upload script,
and the user-content service's content types and download names each read it; a type added
to the table is accepted, offered and served everywhere at once, and none of them keeps a
list of its own.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from benchmax.file_types import ACCEPTED_TYPES, FileType, accept_attribute
from benchmax.models import EvidenceKind
from benchmax.pages.submit.files import upload_kinds
from benchmax.pages.submit.page import submit_page
from benchmax.services.safety import scan, sniff_kind
from benchmax.services.submissions import REASONING_CHOICES
from tests.unit.safety.corpus import png_bytes, zip_bytes
from usercontent_service.headers import download_name, served_content_type

ROOT = Path(__file__).resolve().parents[2]
ALL_EXTENSIONS = {ext for t in ACCEPTED_TYPES for ext in t.extensions}
# One file of each accepted content type, as its first bytes.
SAMPLES = {
    "image/png": png_bytes(),
    "image/jpeg": b"\xff\xd8\xff\xe0rest",
    "image/webp": b"RIFF\x00\x00\x00\x00WEBPVP8 ",
    "image/gif": b"GIF89a....",
    "video/mp4": b"\x00\x00\x00\x14ftypisom\x00\x00\x02\x00isom",
    "video/webm": b"\x1a\x45\xdf\xa3\x87\x42\x82\x84webm",
    "text/plain; charset=utf-8": b"plain words\n",
    "text/markdown; charset=utf-8": b"# Title\n",
    "application/json": b'{"a": 1}',
    "application/x-ndjson": b'{"a": 1}\n',
    "application/zip": zip_bytes({"a.txt": b"a"}),
}
NAMED = [(t, ext) for t in ACCEPTED_TYPES for ext in t.extensions]


def _ids(case: tuple[FileType, str]) -> str:
    return case[1]


def test_every_type_has_a_sample() -> None:
    assert set(SAMPLES) == {t.content_type for t in ACCEPTED_TYPES}


@pytest.mark.parametrize("case", NAMED, ids=_ids)
def test_the_scanner_recognises_every_accepted_name(case: tuple[FileType, str]) -> None:
    file_type, ext = case
    assert sniff_kind(SAMPLES[file_type.content_type], f"file.{ext}") == (
        file_type.kind,
        file_type.content_type,
    )
    assert scan._EXTENSION_KINDS[ext] == file_type.kind


def test_the_scanner_promises_nothing_for_other_extensions() -> None:
    assert set(scan._EXTENSION_KINDS) == ALL_EXTENSIONS


def test_the_wizard_picker_offers_exactly_the_table() -> None:
    rendered = str(submit_page())
    # The page has one other file input, a panel reply's, which offers JSON text only.
    accepts = re.findall(r'accept:"([^"]*)"', rendered)
    assert accept_attribute() in accepts
    assert len(accepts) == 2
    assert {item.removeprefix(".") for item in accept_attribute().split(",")} == ALL_EXTENSIONS


def test_the_upload_script_reads_the_table_from_the_page() -> None:
    kinds = json.loads(upload_kinds())
    assert {ext.removeprefix(".") for kind in kinds for ext in kind["exts"]} == ALL_EXTENSIONS
    assert {name for kind in kinds for name in kind["types"]} >= {
        t.content_type.split(";")[0] for t in ACCEPTED_TYPES
    }
    script = (ROOT / "assets" / "uploads.js").read_text()
    assert not re.search(r'"\.(png|mp4|txt|zip)"|"image/png"', script)


@pytest.mark.parametrize("case", NAMED, ids=_ids)
def test_the_usercontent_service_serves_every_type_and_keeps_its_names(
    case: tuple[FileType, str],
) -> None:
    file_type, ext = case
    kind = EvidenceKind(file_type.kind)
    served = served_content_type(kind, file_type.content_type)
    if file_type.kind in ("image", "video"):
        assert served == file_type.content_type
    assert download_name(kind, served, f"shot.{ext}", "abc") == f"shot.{ext}"


def test_the_wizard_suggests_every_reasoning_choice() -> None:
    rendered = str(submit_page())
    for choice in REASONING_CHOICES:
        assert f'value:"{choice}"' in rendered
