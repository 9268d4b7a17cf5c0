"""The bad-input corpus through the whole pipeline: every bad file ends blocked with a
specific reason, the Test stays private and needs attention, and the good parts are kept."""

from __future__ import annotations

import zipfile
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from benchmax.adapters.storage.local import LocalStorage
from benchmax.models import EvidenceState, TestState
from benchmax.services import submissions
from benchmax.services.jobs import JobContext
from tests.support.submission_helpers import COMPLETE, contributor, draft_with, drain, load
from tests.unit.safety import hostile
from tests.unit.safety.corpus import (
    fake_secrets,
    png_bytes,
    png_claiming_dimensions,
    zip_bytes,
    zip_with_encrypted_entry,
    zip_with_info,
    zip_with_overlapping_entries,
)


def _symlink_zip() -> bytes:
    info = zipfile.ZipInfo("link")
    info.external_attr = (0o120777 << 16) | 0
    return zip_with_info(info, b"/etc/passwd")


def _corpus() -> dict[str, tuple[str, bytes, str]]:
    """case -> (file name, bytes, expected block code prefix)."""
    cases = {
        "zip_ratio_bomb": ("bomb.zip", zip_bytes({"a.txt": b"\0" * (3 * 1024 * 1024)}), "zip_"),
        "zip_many_entries": (
            "many.zip",
            zip_bytes({f"f{i}.txt": b"x" for i in range(5001)}),
            "zip_",
        ),
        "zip_nested": ("nested.zip", zip_bytes({"inner.zip": zip_bytes({"a": b"b"})}), "zip_"),
        "zip_overlap": ("overlap.zip", zip_with_overlapping_entries(), "zip_"),
        "zip_slip": ("slip.zip", zip_bytes({"../../etc/evil.txt": b"x"}), "zip_"),
        "zip_absolute": ("abs.zip", zip_bytes({"/etc/evil.txt": b"x"}), "zip_"),
        "zip_symlink": ("link.zip", _symlink_zip(), "zip_"),
        "zip_encrypted": ("enc.zip", zip_with_encrypted_entry(), "zip_"),
        "polyglot_png": (
            "poly.png",
            png_bytes() + zip_bytes({"index.html": b"<script>alert(1)</script>"}),
            "",  # re-encoded: approved, but the appended archive is gone
        ),
        "svg": ("x.svg", b'<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>', "type_svg"),
        "html": ("x.html", b"<!doctype html><html><script>alert(1)</script></html>", "type_html"),
        "huge_png": ("huge.png", png_claiming_dimensions(100_000, 100_000), "image_too_many"),
        "truncated_png": ("cut.png", png_bytes((200, 200))[:300], "image_corrupt"),
        "png_named_text": ("fake.png", b"just some words, not an image", "type_mismatch"),
        "non_utf8": ("latin.txt", "caf\xe9 cr\xe8me".encode("latin-1"), "text_"),
        "oversize_text": ("big.txt", b"a" * (20 * 1024 * 1024 + 1), "file_too_large"),
    }
    cases.update(_hidden_content_cases())
    for kind, secret in fake_secrets().items():
        spaced = "\u200b".join(secret[i : i + 4] for i in range(0, len(secret), 4))
        cases[f"secret_{kind}"] = (f"{kind}.txt", f"log\n{spaced}\n".encode(), "secret_")
    return cases


def _hidden_content_cases() -> dict[str, tuple[str, bytes, str]]:
    """Content hidden where a naive scanner does not look, one of each class."""
    key = hostile.secret()
    return {
        "zip_secret_utf16": (
            "ps.zip",
            zip_bytes({"run.ps1": hostile.hidden_secret_entries()["utf16le_bom"]}),
            "secret_detected",
        ),
        "zip_secret_after_nul": (
            "bin.zip",
            zip_bytes({"blob.bin": hostile.hidden_secret_entries()["nul_head"]}),
            "secret_detected",
        ),
        "zip_secret_in_name": ("name.zip", zip_bytes({f"{key}.txt": b"x"}), "secret_detected"),
        "zip_unicode_path_slip": (
            "upath.zip",
            hostile.zip_with_extra("a.txt", hostile.unicode_path_field("a.txt", "../../evil")),
            "zip_path_traversal",
        ),
        "zip_gzip_inside": (
            "gz.zip",
            zip_bytes({"data.dat": hostile.embedded_streams()["gzip"]}),
            "zip_nested_archive",
        ),
        "jpeg_cut_and_closed": ("cut.jpg", hostile.jpeg_cut_and_closed(), "image_corrupt"),
        "gif_too_many_frames": (
            "long.gif",
            hostile.gif_with_frames(1001),
            "image_too_many_frames",
        ),
        "mp4_secret_in_udta": (
            "clip.mp4",
            hostile.mp4(udta=hostile.mp4_comment(key.encode())),
            "secret_detected",
        ),
        "webm_secret_in_tags": (
            "clip.webm",
            hostile.webm(hostile.webm_tags(key.encode())),
            "secret_detected",
        ),
    }


CORPUS = _corpus()


@pytest.mark.parametrize("case", sorted(CORPUS))
def test_bad_file_is_blocked_with_a_reason_and_the_rest_is_kept(
    case: str, engine: Engine, tmp_path: Path, job_ctx: JobContext
) -> None:
    _check_blocked_and_kept(case, engine, tmp_path, job_ctx)


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
@pytest.mark.parametrize("case", sorted(_hidden_content_cases()))
def test_hidden_content_is_blocked_on_postgres_too(
    case: str, engine: Engine, tmp_path: Path, job_ctx: JobContext
) -> None:
    _check_blocked_and_kept(case, engine, tmp_path, job_ctx)


def _check_blocked_and_kept(case: str, engine: Engine, tmp_path: Path, job_ctx: JobContext) -> None:
    name, data, code = CORPUS[case]
    storage = LocalStorage(tmp_path / "objects")
    ctx = replace(job_ctx, storage=storage)
    user = contributor(engine)
    fields = {**COMPLETE, "output_text": "The output.", "notes": "my notes"}
    test_id = draft_with(engine, storage, user, fields, {"good.txt": b"fine\n", name: data})
    drain(ctx)
    test, (good, bad) = load(engine, test_id)
    assert good.state == EvidenceState.APPROVED
    assert (test.output_text, test.notes) == ("The output.", "my notes")
    if not code:  # the polyglot: its image is kept, re-encoded without the archive
        assert bad.state == EvidenceState.APPROVED
        assert b"PK\x03\x04" not in b"".join(storage.get(bad.storage_key))
        assert test.state == TestState.PUBLIC
        return
    assert bad.state == EvidenceState.BLOCKED
    assert bad.block_code.startswith(code), bad.block_code
    assert bad.block_reason
    assert bad.storage_key == ""
    assert storage.head(bad.quarantine_key) is None  # blocked bytes are deleted
    assert test.state == TestState.NEEDS_ATTENTION
    assert test.published_at is None
    with Session(engine) as session:
        status = submissions.processing_status(session, user, test_id)
    assert status.plain_status == "Needs attention"
    assert [f.reason for f in status.files if f.state == "blocked"] == [bad.block_reason]
    if code == "secret_detected" or case.startswith("secret_"):
        assert "looks like" in bad.block_reason
        assert hostile.secret()[-12:] not in bad.block_reason + repr(bad.scan_report)
        assert all(f.get("type") == "secret" for f in bad.scan_report["findings"])
