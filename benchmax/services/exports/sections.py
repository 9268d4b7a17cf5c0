"""What an export holds: one ``ExportSection`` per table, each read in bounded batches.

Every section reads only public rows and an allow-list of columns: a public Test, its
approved evidence (a source ZIP only when its contributor made it public) and its reviews.
Removed Tests, blocked or removed files, private sources, scan reports, storage keys and
account details other than the public handle never leave the database.

``SECTIONS`` is the extension point: a new kind of public record (leaderboard snapshots,
for one) is one more ``ExportSection`` appended there, with its columns and a row reader.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, and_, or_, tuple_
from sqlmodel import Session, col, select

from benchmax.adapters.storage import EVIDENCE_PREFIX
from benchmax.models import (
    CatalogModel,
    EvidenceFile,
    EvidenceKind,
    EvidenceState,
    Harness,
    ModelFamily,
    Review,
    SourceVisibility,
    Test,
    TestState,
    User,
)
from benchmax.services.dates import iso
from benchmax.services.evidence_urls import evidence_url
from benchmax.services.labels import DECLARED_LABEL
from benchmax.services.summaries import group_url

BATCH_SIZE = 500


@dataclass(frozen=True)
class ExportContext:
    app_origin: str
    usercontent_origin: str


Rows = Callable[[Session, ExportContext], Iterator[dict[str, Any]]]


@dataclass(frozen=True)
class ExportSection:
    name: str  # file stem: tests.jsonl, tests.csv
    columns: tuple[str, ...]
    rows: Rows
    description: str


def _public_test() -> ColumnElement[bool]:
    return and_(col(Test.state) == TestState.PUBLIC, col(Test.published_at).is_not(None))


def _test_rows(session: Session, ctx: ExportContext) -> Iterator[dict[str, Any]]:
    after: tuple[Any, str] | None = None
    while True:
        statement = (
            select(  # type: ignore[call-overload]  # five columns: past sqlmodel's typed overloads
                Test, User.handle, ModelFamily.slug, CatalogModel.slug, Harness.slug
            )
            .join(User, col(User.id) == Test.contributor_id)
            .outerjoin(ModelFamily, col(ModelFamily.id) == Test.family_id)
            .outerjoin(CatalogModel, col(CatalogModel.id) == Test.catalog_model_id)
            .outerjoin(Harness, col(Harness.id) == Test.harness_id)
            .where(_public_test())
            .order_by(col(Test.published_at), col(Test.id))
            .limit(BATCH_SIZE)
        )
        if after is not None:
            statement = statement.where(tuple_(Test.published_at, Test.id) > tuple_(*after))
        batch = session.exec(statement).all()
        for test, handle, family, model, harness in batch:
            yield _test_record(ctx, test, handle, family, model, harness)
        session.expunge_all()  # keep the identity map to one batch
        if len(batch) < BATCH_SIZE:
            return
        last = batch[-1][0]
        after = (last.published_at, last.id)


def _test_record(
    ctx: ExportContext, test: Test, handle: str, family: str | None, model: str | None,
    harness: str | None,
) -> dict[str, Any]:  # fmt: skip
    return {
        "id": test.id,
        "url": f"{ctx.app_origin}/tests/{test.id}",
        "title": test.display_title,
        "prompt": test.prompt,
        "model": test.model_label,
        "model_version": test.model_version_label,
        "harness": test.harness_label,
        "reasoning": test.reasoning_label,
        "settings": test.settings_text,
        "attempts": test.attempts,
        "notes": test.notes,
        "output": test.output_text,
        "setup_label": DECLARED_LABEL,
        "catalog_family": family,
        "catalog_model": model,
        "catalog_harness": harness,
        "gateway_call_id": test.gateway_call_id,
        "prompt_key": test.prompt_key,
        "group_url": ctx.app_origin + group_url(test.prompt_key),
        "review_state": str(test.review_state),
        "source_visibility": str(test.source_visibility),
        "evidence_kinds": test.evidence_kinds,
        "contributor": handle,
        "contributor_url": f"{ctx.app_origin}/u/{handle}",
        "is_sample": test.is_sample,
        "published_at": iso(test.published_at),
    }


def public_evidence() -> ColumnElement[bool]:
    """The rows the user-content origin serves: approved, classified, under the evidence
    prefix, and a source ZIP only when its Test's source is public."""
    return and_(
        _public_test(),
        col(EvidenceFile.state) == EvidenceState.APPROVED,
        col(EvidenceFile.kind).in_([kind.value for kind in EvidenceKind]),
        col(EvidenceFile.storage_key).startswith(EVIDENCE_PREFIX),
        or_(
            col(EvidenceFile.kind) != EvidenceKind.SOURCE,
            col(Test.source_visibility) == SourceVisibility.PUBLIC,
        ),
    )


def _batches(session: Session, statement: Any, id_column: Any) -> Iterator[list[Any]]:
    """Rows of ``statement`` in id order, ``BATCH_SIZE`` at a time (keyset, never OFFSET)."""
    after: str | None = None
    while True:
        page = statement.order_by(id_column).limit(BATCH_SIZE)
        if after is not None:
            page = page.where(id_column > after)
        batch = list(session.exec(page).all())
        if batch:
            yield batch
        session.expunge_all()
        if len(batch) < BATCH_SIZE:
            return
        after = batch[-1][0].id


def _evidence_rows(session: Session, ctx: ExportContext) -> Iterator[dict[str, Any]]:
    statement = (
        select(EvidenceFile, Test.id)
        .join(Test, col(Test.id) == EvidenceFile.test_id)
        .where(public_evidence())
    )
    for batch in _batches(session, statement, col(EvidenceFile.id)):
        yield from (_evidence_record(ctx, file) for file, _test_id in batch)


def _evidence_record(ctx: ExportContext, file: EvidenceFile) -> dict[str, Any]:
    return {
        "id": file.id,
        "test_id": file.test_id,
        "kind": str(file.kind),
        "name": file.safe_name,
        "content_type": file.content_type,
        "size_bytes": file.size_bytes,
        "sha256": file.sha256,
        "width": file.width,
        "height": file.height,
        "url": evidence_url(ctx.usercontent_origin, file.id, file.safe_name),
    }


def _review_rows(session: Session, _ctx: ExportContext) -> Iterator[dict[str, Any]]:
    statement = (
        select(Review, User.handle)
        .join(Test, col(Test.id) == Review.test_id)
        .outerjoin(User, col(User.id) == Review.reviewer_id)
        .where(_public_test())
    )
    for batch in _batches(session, statement, col(Review.id)):
        ids = [review.id for review, _handle in batch]
        corrected = set(
            session.exec(
                select(Review.corrects_review_id).where(col(Review.corrects_review_id).in_(ids))
            ).all()
        )
        yield from (_review_record(review, handle, corrected) for review, handle in batch)


def _review_record(
    review: Review, handle: str | None, corrected: set[str | None]
) -> dict[str, Any]:
    return {
        "id": review.id,
        "test_id": review.test_id,
        "reviewer_kind": str(review.reviewer_kind),
        "reviewer": handle,
        "score": review.score,
        "reasoning": review.reasoning,
        "corrects_review_id": review.corrects_review_id,
        "superseded": review.id in corrected,
        "created_at": iso(review.created_at),
    }


TESTS = ExportSection(
    "tests",
    ("id", "url", "title", "prompt", "model", "model_version", "harness", "reasoning",
     "settings", "attempts", "notes", "output", "setup_label", "catalog_family",
     "catalog_model", "catalog_harness", "gateway_call_id", "prompt_key", "group_url",
     "review_state", "source_visibility", "evidence_kinds", "contributor", "contributor_url",
     "is_sample", "published_at"),
    _test_rows,
    "Every public Test: prompt, declared setup (declared by the contributor, not verified), "
    "output and contributor.",
)  # fmt: skip
EVIDENCE = ExportSection(
    "evidence",
    ("id", "test_id", "kind", "name", "content_type", "size_bytes", "sha256", "width",
     "height", "url"),
    _evidence_rows,
    "Metadata of every public evidence file, with its URL on the user-content origin.",
)  # fmt: skip
REVIEWS = ExportSection(
    "reviews",
    ("id", "test_id", "reviewer_kind", "reviewer", "score", "reasoning", "corrects_review_id",
     "superseded", "created_at"),
    _review_rows,
    "Every review of a public Test, corrections included (append-only history).",
)  # fmt: skip

SECTIONS: tuple[ExportSection, ...] = (TESTS, EVIDENCE, REVIEWS)
