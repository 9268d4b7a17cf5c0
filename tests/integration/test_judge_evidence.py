"""What the judge may read of a Test: bounded text, a few images, public ZIP text only."""

from __future__ import annotations

import base64
import io
import zipfile
from pathlib import Path

import pytest
from sqlmodel import Session

from benchmax.adapters.storage.local import LocalStorage
from benchmax.models import EvidenceKind, EvidenceState, SourceVisibility
from benchmax.services.judge.evidence import TRUNCATED, EvidenceBounds, build_evidence
from tests.support.factories import make_stored_evidence, make_test

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06"
    b"\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00"
    b"\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82"
)


def _zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


@pytest.fixture
def storage(tmp_path: Path) -> LocalStorage:
    return LocalStorage(tmp_path / "objects")


def _labels(evidence: object) -> dict[str, str]:
    return {section.label: section.text for section in evidence.sections}  # type: ignore[attr-defined]


def test_text_images_and_a_public_zip_within_bounds(
    session: Session, storage: LocalStorage
) -> None:
    test = make_test(session, output_text="o" * 50, source_visibility=SourceVisibility.PUBLIC)
    make_stored_evidence(session, storage, test, b"L" * 500, safe_name="run.log")
    make_stored_evidence(session, storage, test, PNG, kind=EvidenceKind.IMAGE,
                         content_type="image/png", safe_name="shot.png")  # fmt: skip
    source = _zip({"index.html": "<h1>héllo</h1>".encode(), "logo.bin": b"\x00\xff" * 10,
                   "app.js": ("é" * 200).encode()})  # fmt: skip
    make_stored_evidence(session, storage, test, source, kind=EvidenceKind.SOURCE,
                         content_type="application/zip", safe_name="site.zip")  # fmt: skip
    bounds = EvidenceBounds(max_file_chars=100, max_zip_entry_chars=50)
    evidence = build_evidence(session, storage, test, bounds)
    sections = _labels(evidence)
    assert sections["File run.log"] == "L" * 100 + TRUNCATED
    assert sections["Source file site.zip: index.html"] == "<h1>héllo</h1>"
    assert sections["Source file site.zip: app.js"] == "é" * 50 + TRUNCATED
    assert sections["Source site.zip"] == "[1 entries omitted]"
    assert evidence.image_urls == ["data:image/png;base64," + base64.b64encode(PNG).decode()]


def test_a_private_zip_and_unapproved_files_are_never_sent(
    session: Session, storage: LocalStorage
) -> None:
    test = make_test(session, source_visibility=SourceVisibility.PRIVATE)
    make_stored_evidence(session, storage, test, _zip({"secret.py": b"KEEP_OUT = 1"}),
                         kind=EvidenceKind.SOURCE, content_type="application/zip")  # fmt: skip
    make_stored_evidence(session, storage, test, b"blocked words", state=EvidenceState.BLOCKED)
    evidence = build_evidence(session, storage, test, EvidenceBounds())
    text = " ".join(section.text for section in evidence.sections)
    assert "KEEP_OUT" not in text
    assert "blocked words" not in text
    assert _labels(evidence)["Other files"] == "[1 files omitted]"


def test_the_total_bound_holds_across_every_section(
    session: Session, storage: LocalStorage
) -> None:
    test = make_test(session, prompt="p" * 300, output_text="o" * 300)
    for _ in range(4):
        make_stored_evidence(session, storage, test, b"t" * 300)
    bounds = EvidenceBounds(max_total_chars=800, max_file_chars=300, max_images=0)
    evidence = build_evidence(session, storage, test, bounds)
    counted = sum(len(s.text.replace(TRUNCATED, "")) for s in evidence.sections
                  if s.label not in ("Reasoning setting", "Other files"))  # fmt: skip
    assert counted <= 800
    assert _labels(evidence)["Other files"] == "[3 files omitted]"


def test_too_many_images_or_too_large_ones_are_left_out(
    session: Session, storage: LocalStorage
) -> None:
    test = make_test(session)
    for _ in range(3):
        make_stored_evidence(session, storage, test, PNG, kind=EvidenceKind.IMAGE,
                             content_type="image/png")  # fmt: skip
    evidence = build_evidence(session, storage, test, EvidenceBounds(max_images=2))
    assert len(evidence.image_urls) == 2
    small = build_evidence(session, storage, test, EvidenceBounds(max_image_bytes=10))
    assert small.image_urls == []
