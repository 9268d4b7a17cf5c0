"""The sample Tests ``benchmax demo seed`` creates: public, with evidence readers can fetch."""

from __future__ import annotations

import hashlib
from pathlib import Path

from sqlmodel import Session, select

from benchmax.adapters.storage.local import LocalStorage
from benchmax.models import EvidenceFile, EvidenceState, Test, TestState
from benchmax.services.demo import seed_demo
from benchmax.services.pipeline import evidence_key


def test_seeded_evidence_is_stored_where_its_row_says_with_its_size_and_digest(
    session: Session, tmp_path: Path
) -> None:
    storage = LocalStorage(tmp_path / "objects")

    created = seed_demo(session, storage)
    session.commit()

    tests = session.exec(select(Test)).all()
    assert created == len(tests) > 0
    assert {test.state for test in tests} == {TestState.PUBLIC}
    files = session.exec(select(EvidenceFile)).all()
    assert files
    for file in files:
        data = b"".join(storage.get(file.storage_key or ""))
        assert file.storage_key == evidence_key(file.test_id, file.id)
        assert (file.size_bytes, file.sha256) == (len(data), hashlib.sha256(data).hexdigest())
        assert file.state == EvidenceState.APPROVED
        assert file.content_type


def test_a_second_seed_creates_nothing(session: Session, tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path / "objects")
    seed_demo(session, storage)

    assert seed_demo(session, storage) == 0
