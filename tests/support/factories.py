"""Factories for test data: each makes a valid row with overridable fields and flushes it."""

from __future__ import annotations

import hashlib
import io
import itertools
from datetime import timedelta
from typing import Any

from PIL import Image
from sqlmodel import Session

from benchmax.adapters.storage import EVIDENCE_PREFIX, ObjectStorage
from benchmax.models import (
    Dispute,
    EvidenceFile,
    EvidenceKind,
    EvidenceState,
    Job,
    JobState,
    Report,
    ReportReason,
    Review,
    ReviewerKind,
    Role,
    Test,
    TestState,
    User,
)
from benchmax.models._base import new_id, utcnow

_counter = itertools.count(1)


def make_user(session: Session, **overrides: Any) -> User:
    n = next(_counter)
    values: dict[str, Any] = {
        "handle": f"user{n}",
        "display_name": f"User {n}",
        "auth_subject": f"user_test_{n}",
        "role": Role.CONTRIBUTOR,
    }
    values.update(overrides)
    user = User(**values)
    session.add(user)
    session.flush()
    return user


def make_test(session: Session, contributor: User | None = None, **overrides: Any) -> Test:
    contributor = contributor or make_user(session)
    n = next(_counter)
    now = utcnow()
    values: dict[str, Any] = {
        "contributor_id": contributor.id,
        "prompt": f"Write a haiku about the number {n}.",
        "model_label": "Claude Sonnet 4.5",
        "harness_label": "Claude Code",
        "reasoning_label": "medium",
        "output_text": f"Output number {n}",
        "state": TestState.PUBLIC,
        "submitted_at": now - timedelta(seconds=5),
        "published_at": now,
    }
    values.update(overrides)
    test = Test(**values)
    session.add(test)
    session.flush()
    return test


def make_evidence(session: Session, test: Test, **overrides: Any) -> EvidenceFile:
    n = next(_counter)
    values: dict[str, Any] = {
        "test_id": test.id,
        "kind": EvidenceKind.TEXT,
        "original_name": f"log-{n}.txt",
        "safe_name": f"log-{n}.txt",
        "content_type": "text/plain",
        "state": EvidenceState.APPROVED,
    }
    values.update(overrides)
    evidence = EvidenceFile(**values)
    session.add(evidence)
    session.flush()
    return evidence


def make_stored_evidence(
    session: Session, storage: ObjectStorage, test: Test, data: bytes, **overrides: Any
) -> EvidenceFile:
    """Evidence whose bytes really are in ``storage``, with a matching size and SHA-256."""
    evidence_id = overrides.pop("id", None) or new_id()
    values: dict[str, Any] = {
        "id": evidence_id,
        "size_bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "storage_key": f"{EVIDENCE_PREFIX}{test.id}/{evidence_id}",
    }
    values.update(overrides)
    storage.put(values["storage_key"], [data])
    return make_evidence(session, test, **values)


def png(color: tuple[int, int, int] = (20, 120, 220), size: tuple[int, int] = (320, 200)) -> bytes:
    """A one-colour PNG the safety scan accepts; different colours make different files."""
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format="PNG")
    return buffer.getvalue()


def make_stored_image(
    session: Session, storage: ObjectStorage, test: Test, data: bytes, **overrides: Any
) -> EvidenceFile:
    """An approved screenshot, stored, named ``shot.png`` unless ``overrides`` say otherwise."""
    values: dict[str, Any] = {
        "kind": EvidenceKind.IMAGE,
        "content_type": "image/png",
        "original_name": "shot.png",
        "safe_name": "shot.png",
    }
    return make_stored_evidence(session, storage, test, data, **(values | overrides))


def make_review(session: Session, test: Test, reviewer: User, **overrides: Any) -> Review:
    values: dict[str, Any] = {
        "test_id": test.id,
        "reviewer_id": reviewer.id,
        "reviewer_kind": ReviewerKind.HUMAN,
        "score": 70,
        "reasoning": "The output answers the prompt completely and clearly.",
    }
    values.update(overrides)
    review = Review(**values)
    session.add(review)
    session.flush()
    return review


def make_report(session: Session, test: Test, reporter: User, **overrides: Any) -> Report:
    values: dict[str, Any] = {
        "test_id": test.id,
        "reporter_id": reporter.id,
        "reason": ReportReason.SPAM,
        "details": "Looks like an advert.",
    }
    values.update(overrides)
    report = Report(**values)
    session.add(report)
    session.flush()
    return report


def make_dispute(session: Session, review: Review, **overrides: Any) -> Dispute:
    test = session.get(Test, review.test_id)
    assert test is not None
    values: dict[str, Any] = {
        "review_id": review.id,
        "test_id": test.id,
        "contributor_id": test.contributor_id,
        "reason": "The review misread the output entirely.",
    }
    values.update(overrides)
    dispute = Dispute(**values)
    session.add(dispute)
    session.flush()
    return dispute


def make_dead_publish_job(session: Session, test: Test, **overrides: Any) -> Job:
    """A publish job that ran out of attempts, as the dead-letter table lists it."""
    values: dict[str, Any] = {
        "kind": "publish_test",
        "subject_id": test.id,
        "state": JobState.DEAD,
        "attempts": 5,
        "max_attempts": 5,
        "last_error_code": "OperationalError",
    }
    values.update(overrides)
    job = Job(**values)
    session.add(job)
    session.flush()
    return job
