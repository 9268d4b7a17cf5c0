"""Clearly marked sample Tests so a fresh embedded install has something to look at.

Used by ``benchmax demo seed`` — which ``make run`` calls only on an empty database. Sample
evidence is generated here (a small PNG chart and a log) and stored exactly as the safety
pipeline would store approved files, so the user-content service serves it the normal way.
"""

from __future__ import annotations

import io
from datetime import timedelta
from typing import Any

from PIL import Image, ImageDraw
from sqlmodel import Session, func, select

from benchmax.adapters.storage import ObjectStorage
from benchmax.models import (
    EvidenceFile,
    EvidenceKind,
    EvidenceState,
    SourceVisibility,
    Test,
    TestState,
    User,
)
from benchmax.models._base import new_id, utcnow
from benchmax.services.catalog.linking import link_declared_setup
from benchmax.services.pipeline import evidence_key
from benchmax.services.stored_bytes import put_bytes

SAMPLE_HANDLE = "benchmax-samples"
SAMPLE_TAG = "[Sample] "

SAMPLES: list[dict[str, Any]] = [
    {
        "title": "Bouncing ball in a rotating hexagon",
        "prompt": "Write a single-file HTML page that animates a ball bouncing inside a slowly "
        "rotating hexagon, with gravity and friction.\nNo external libraries.",
        "model_label": "Claude Sonnet 4.5",
        "harness_label": "Claude Code",
        "reasoning_label": "high",
        "attempts": 3,
        "output_text": "The page uses `requestAnimationFrame` and resolves collisions against each "
        "hexagon edge:\n\n```js\nconst bounce = reflect(velocity, edgeNormal) * 0.9;\n```\n\n"
        "* Gravity: 900 px/s²\n* Friction: 0.99 per frame",
        "image": True,
    },
    {
        "title": "Mutex vs semaphore in 150 words",
        "prompt": "Explain the difference between a mutex and a semaphore to a new engineer in "
        "under 150 words.",
        "model_label": "GPT-5",
        "harness_label": "ChatGPT web",
        "reasoning_label": "medium",
        "attempts": None,
        "output_text": "A **mutex** is a lock with an owner: one thread takes it, the same "
        "thread releases it. A **semaphore** is a counter of permits…",
        "image": False,
    },
    {
        "title": "Refactor a 400-line Python module into packages",
        "prompt": "Split utils.py into a package with one module per concern and keep every "
        "public import working.",
        "model_label": "Gemini 2.5 Pro",
        "harness_label": "Gemini CLI",
        "reasoning_label": "unknown",
        "attempts": 1,
        "output_text": "Created `utils/` with `io.py`, `text.py` and `dates.py`, and an "
        "`__init__.py` re-exporting the old names. All 212 tests pass.",
        "image": True,
    },
    {
        "title": "SQL window functions quiz",
        "prompt": "Write a query returning each customer's second most recent order.",
        "model_label": "DeepSeek V3.1",
        "harness_label": "API direct",
        "reasoning_label": "none",
        "attempts": 5,
        "output_text": "```sql\nSELECT * FROM (\n  SELECT o.*, ROW_NUMBER() OVER (PARTITION BY "
        "customer_id ORDER BY created_at DESC) AS rn\n  FROM orders o\n) t WHERE rn = 2;\n```",
        "image": False,
    },
]


def _chart_png(seed: int) -> bytes:
    image = Image.new("RGB", (640, 360), (245, 246, 250))
    draw = ImageDraw.Draw(image)
    for i in range(8):
        height = 40 + ((seed * 37 + i * 53) % 260)
        draw.rectangle([40 + i * 72, 340 - height, 90 + i * 72, 340], fill=(91, 91, 214))
    draw.text((40, 16), "Sample evidence", fill=(30, 30, 40))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _store(
    storage: ObjectStorage,
    session: Session,
    test: Test,
    name: str,
    kind: EvidenceKind,
    content_type: str,
    data: bytes,
    position: int,
) -> EvidenceFile:
    evidence_id = new_id()
    evidence = EvidenceFile(
        id=evidence_id,
        test_id=test.id,
        kind=kind,
        original_name=name,
        safe_name=name,
        state=EvidenceState.APPROVED,
        position=position,
        **put_bytes(storage, evidence_key(test.id, evidence_id), data, content_type),
    )
    session.add(evidence)
    return evidence


def database_is_empty(session: Session) -> bool:
    return session.exec(select(func.count()).select_from(Test)).one() == 0


def seed_demo(session: Session, storage: ObjectStorage) -> int:
    """Create the sample Tests; returns how many were created (0 when already present)."""
    user = session.exec(select(User).where(User.handle == SAMPLE_HANDLE)).first()
    if user is None:
        user = User(
            handle=SAMPLE_HANDLE,
            display_name="BenchMax samples",
            auth_subject=f"sample|{SAMPLE_HANDLE}",
        )
        session.add(user)
        session.flush()
    elif session.exec(select(Test).where(Test.contributor_id == user.id)).first():
        return 0
    now = utcnow()
    for index, sample in enumerate(SAMPLES):
        published = now - timedelta(hours=index * 5 + 1)
        test = Test(
            contributor_id=user.id,
            title=SAMPLE_TAG + str(sample["title"]),
            prompt=str(sample["prompt"]),
            model_label=str(sample["model_label"]),
            harness_label=str(sample["harness_label"]),
            reasoning_label=str(sample["reasoning_label"]),
            attempts=sample["attempts"],
            notes="This is a sample Test created by `benchmax demo seed`.",
            output_text=str(sample["output_text"]),
            state=TestState.PUBLIC,
            source_visibility=SourceVisibility.PRIVATE,
            is_sample=True,
            submitted_at=published - timedelta(seconds=4),
            published_at=published,
            created_at=published - timedelta(minutes=3),
        )
        session.add(test)
        session.flush()
        link_declared_setup(session, test)
        kinds = ["text"]
        log = f"run {index}: finished in {1.5 + index:.1f}s\nexit status 0\n".encode()
        _store(storage, session, test, "run.log", EvidenceKind.TEXT, "text/plain", log, 1)
        if sample["image"]:
            png = _store(
                storage,
                session,
                test,
                "screenshot.png",
                EvidenceKind.IMAGE,
                "image/png",
                _chart_png(index),
                0,
            )
            test.thumbnail_evidence_id = png.id
            kinds.insert(0, "image")
        test.evidence_kinds = ",".join(kinds)
    session.flush()
    return len(SAMPLES)
