"""The restore drill, for each supported pair of engines and storage.

Build a small BenchMax (Tests with evidence, a private object, reviews with a correction, a
moderation decision, audit events) → back up → restore into fresh resources → verify matches;
then damage one restored object and one restored row → verify reports exactly those two.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, text, update
from sqlmodel import Session, col, select

from benchmax.adapters.storage import ObjectStorage
from benchmax.adapters.storage.local import LocalStorage
from benchmax.adapters.storage.s3 import S3Storage
from benchmax.db import make_engine
from benchmax.models import (
    AuditEvent,
    BackupRecord,
    EvidenceKind,
    ModerationDecision,
    Review,
    ReviewerKind,
    Role,
    SourceVisibility,
    Test,
)
from benchmax.services.backup import (
    BACKUP_PREFIX,
    ManifestError,
    RestoreRefusedError,
    create_backup,
    load_manifest,
    restore,
    verify,
)
from tests.conftest import _pg_admin, _pg_url
from tests.support.factories import make_stored_evidence, make_test, make_user
from tests.support.s3server import make_s3_settings

PRIVATE_KEY_TEMPLATE = "private/sources/{test_id}/source.zip"


def build_world(engine: Engine, storage: ObjectStorage) -> dict[str, str]:
    """A little of everything a backup must carry; returns the keys the checks need."""
    with Session(engine, expire_on_commit=False) as session:
        owner = make_user(session, role=Role.OWNER)
        moderator = make_user(session, role=Role.MODERATOR)
        tests = [make_test(session) for _ in range(3)]
        evidence = [
            make_stored_evidence(session, storage, test, f"log line {n}\n".encode() * 50)
            for n, test in enumerate(tests)
        ]
        image = make_stored_evidence(
            session, storage, tests[0], bytes(range(256)) * 40, kind=EvidenceKind.IMAGE
        )
        private_key = PRIVATE_KEY_TEMPLATE.format(test_id=tests[1].id)
        make_stored_evidence(
            session,
            storage,
            tests[1],
            b"PK\x03\x04 private source bytes",
            kind=EvidenceKind.SOURCE,
            storage_key=private_key,
        )
        tests[1].source_visibility = SourceVisibility.PRIVATE
        first = Review(
            test_id=tests[0].id,
            reviewer_id=owner.id,
            reviewer_kind=ReviewerKind.ADMIN,
            score=60,
            reasoning="Works, but the output is incomplete.",
        )
        session.add(first)
        session.flush()
        session.add(
            Review(
                test_id=tests[0].id,
                reviewer_id=owner.id,
                reviewer_kind=ReviewerKind.ADMIN,
                score=75,
                reasoning="Corrected: the second file completes it.",
                corrects_review_id=first.id,
            )
        )
        session.add(
            ModerationDecision(
                moderator_id=moderator.id,
                action="dismiss_report",
                target_type="test",
                target_id=tests[2].id,
                reason="Report does not describe a real problem.",
            )
        )
        session.add(
            AuditEvent(
                actor_id=owner.id, action="test.viewed", subject_type="test", subject_id=tests[2].id
            )
        )
        session.commit()
        return {
            "evidence_key": evidence[0].storage_key,
            "image_key": image.storage_key,
            "private_key": private_key,
            "test_id": tests[2].id,
        }


def drill(
    engine: Engine,
    storage: ObjectStorage,
    target_url: str,
    target: ObjectStorage,
    spare_target: ObjectStorage,
    snapshot_format: str = "auto",
) -> None:
    keys = build_world(engine, storage)
    backup = create_backup(engine, storage, created_by="drill", snapshot_format=snapshot_format)
    assert backup.problems == ()
    manifest = backup.manifest
    assert backup.manifest_key.startswith(BACKUP_PREFIX)
    assert manifest.tables["review"].rows == 2
    assert manifest.tables["moderation_decision"].rows == 1
    assert {entry.key for entry in manifest.objects} >= set(keys.values()) - {keys["test_id"]}
    assert not any(entry.key.startswith(BACKUP_PREFIX) for entry in manifest.objects)
    # The live system matches the backup it just made.
    assert verify(engine, storage, manifest) == []
    with Session(engine) as session:
        record = session.exec(select(BackupRecord)).one()
    assert record.verify_ok is True
    assert record.manifest_key == backup.manifest_key

    result = restore(backup.manifest_key, storage, target_url, target)
    assert result.differences == ()
    assert result.objects_copied == len(manifest.objects)
    # Private stays private: same key under private/, nothing new under evidence/.
    private = target.head(keys["private_key"])
    assert private is not None
    assert not any(info.key.endswith("source.zip") for info in target.list("evidence/"))

    with pytest.raises(RestoreRefusedError, match="database is not empty"):
        restore(backup.manifest_key, storage, target_url, spare_target)

    target.put(keys["image_key"], [b"tampered bytes"])
    restored = make_engine(target_url)
    try:
        with restored.begin() as conn:
            conn.execute(
                update(Test).where(col(Test.id) == keys["test_id"]).values(title="Tampered")
            )
        differences = verify(restored, target, manifest)
    finally:
        restored.dispose()
    assert [(d.kind, d.subject) for d in differences] == [
        ("table", "test"),
        ("object", keys["image_key"]),
    ]


def test_sqlite_and_local_storage_drill(tmp_path: Path, sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    try:
        drill(
            engine,
            LocalStorage(tmp_path / "objects"),
            f"sqlite:///{tmp_path / 'restored' / 'benchmax.db'}",
            LocalStorage(tmp_path / "restored-objects"),
            LocalStorage(tmp_path / "spare-objects"),
        )
    finally:
        engine.dispose()


@pytest.fixture
def empty_postgres_url() -> Iterator[str]:
    name = f"bmx_restore_{uuid.uuid4().hex[:10]}"
    _pg_admin(f'CREATE DATABASE "{name}"')
    yield _pg_url(name)
    _pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.mark.parametrize("snapshot_format", ["pg_dump", "logical"])
def test_postgres_and_s3_drill(
    postgres_url: str, empty_postgres_url: str, s3_endpoint: str, snapshot_format: str
) -> None:
    engine = make_engine(postgres_url)
    try:
        drill(
            engine,
            S3Storage.from_settings(make_s3_settings(s3_endpoint)),
            empty_postgres_url,
            S3Storage.from_settings(make_s3_settings(s3_endpoint)),
            S3Storage.from_settings(make_s3_settings(s3_endpoint)),
            snapshot_format,
        )
        # Serials continue past the restored ids, so new audit events can be written.
        restored = make_engine(empty_postgres_url)
        with restored.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO audit_event (actor_id, action, subject_type, subject_id, detail,"
                    " created_at) VALUES (NULL, 'restore.checked', 'system', '-', '{}', now())"
                )
            )
        restored.dispose()
    finally:
        engine.dispose()


def test_restore_refuses_non_empty_storage(tmp_path: Path, sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    storage = LocalStorage(tmp_path / "objects")
    build_world(engine, storage)
    backup = create_backup(engine, storage, created_by="drill")
    engine.dispose()
    occupied = LocalStorage(tmp_path / "occupied")
    occupied.put("evidence/someone-else", [b"x"])
    target_url = f"sqlite:///{tmp_path / 'fresh.db'}"
    with pytest.raises(RestoreRefusedError, match="storage is not empty"):
        restore(backup.manifest_key, storage, target_url, occupied)
    assert not (tmp_path / "fresh.db").exists()


def test_a_tampered_manifest_is_refused(tmp_path: Path, sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    storage = LocalStorage(tmp_path / "objects")
    build_world(engine, storage)
    backup = create_backup(engine, storage, created_by="drill")
    engine.dispose()
    data = b"".join(storage.get(backup.manifest_key)).replace(b'"rows":3', b'"rows":4', 1)
    storage.put(backup.manifest_key, [data])
    with pytest.raises(ManifestError, match="SHA-256"):
        load_manifest(storage, backup.manifest_key)
    assert hashlib.sha256(data).hexdigest() != backup.manifest_sha256
