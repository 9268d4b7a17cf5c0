"""The catalog as readers and the wizard see it: families, models, declared labels that match
nothing, and autocomplete suggestions.

A label that maps to nothing keeps its links empty, stays verbatim on the Test, and is listed
on /models as "declared" (see ``declared_unmatched_labels``). Linking a Test's labels to the
catalog is ``catalog_linking``; how labels match is decided in ``benchmax.services.labels``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from sqlalchemy import func, or_
from sqlmodel import Session, col, select

from benchmax.models import (
    CatalogModel,
    Harness,
    LabelKind,
    LabelMapping,
    ModelFamily,
    ModelVersion,
    Test,
    TestState,
)
from benchmax.services.feed import FeedFilters, FeedPage, list_feed
from benchmax.services.labels import (
    normalise_label,
)

__all__ = [
    "DeclaredLabel",
    "FamilyDetail",
    "FamilySummary",
    "ModelDetail",
    "ModelSummary",
    "Suggestion",
    "catalog_names",
    "declared_unmatched_labels",
    "family_detail",
    "list_families",
    "model_detail",
    "normalise_label",
    "suggest_harnesses",
    "suggest_models",
]

# Mapping rows scanned per autocomplete keystroke before ranking; a few hundred at most exist.
_SUGGESTION_SCAN = 200
_MAX_SUGGESTIONS = 20


@dataclass(frozen=True)
class FamilySummary:
    slug: str
    name: str
    vendor: str
    model_count: int
    public_test_count: int


@dataclass(frozen=True)
class ModelSummary:
    slug: str
    name: str
    family_slug: str
    family_name: str
    versions: list[str]
    public_test_count: int


@dataclass(frozen=True)
class FamilyDetail:
    family: FamilySummary
    models: list[ModelSummary]
    page: FeedPage = field(default_factory=FeedPage)


@dataclass(frozen=True)
class ModelDetail:
    model: ModelSummary
    page: FeedPage = field(default_factory=FeedPage)


@dataclass(frozen=True)
class DeclaredLabel:
    """A label public Tests use that maps to no catalog entry.

    ``label`` is one verbatim spelling (the alphabetically first) of the Tests sharing ``key``;
    the feed's ``model``/``harness`` filter accepts either.
    """

    kind: str
    label: str
    key: str
    test_count: int


@dataclass(frozen=True)
class Suggestion:
    """One autocomplete entry: what the wizard fills in, and a hint such as the family."""

    slug: str
    label: str
    version_label: str = ""
    detail: str = ""


NameKind = Literal["model", "vendor", "harness"]


def catalog_names(session: Session) -> Iterator[tuple[str, NameKind]]:
    """Every name the catalog knows and what it names, for identity blinding: per family its
    name, slug and vendor, per model its name and slug, per version its slug and name, per
    harness its name and slug, then every mapped label. The order is stable, so a name that
    two kinds share always goes to the same one."""
    for family in session.exec(select(ModelFamily)).all():
        yield from ((family.name, "model"), (family.slug, "model"), (family.vendor, "vendor"))
    for model in session.exec(select(CatalogModel)).all():
        yield from ((model.name, "model"), (model.slug, "model"))
    for version in session.exec(select(ModelVersion)).all():
        yield from ((version.slug, "model"), (version.name, "model"))
    for harness in session.exec(select(Harness)).all():
        yield from ((harness.name, "harness"), (harness.slug, "harness"))
    for kind, key in session.exec(select(LabelMapping.kind, LabelMapping.normalized_label)).all():
        yield key, "harness" if kind == LabelKind.HARNESS else "model"


def _public_counts(session: Session, column: object) -> dict[str, int]:
    rows = session.exec(
        select(column, func.count())  # type: ignore[call-overload]  # column is any column
        .where(col(Test.state) == TestState.PUBLIC, col(column).is_not(None))
        .group_by(column)
    ).all()
    return dict(rows)


def _family_summary(family: ModelFamily, model_count: int, test_count: int) -> FamilySummary:
    return FamilySummary(family.slug, family.name, family.vendor, model_count, test_count)


def family_options(session: Session) -> list[tuple[str, str]]:
    """(slug, name) of every family in catalog order: the feed's filter needs no counts."""
    rows = session.exec(
        select(ModelFamily.slug, ModelFamily.name).order_by(
            col(ModelFamily.position), col(ModelFamily.name)
        )
    ).all()
    return [(slug, name) for slug, name in rows]


def list_families(session: Session) -> list[FamilySummary]:
    """Every family in catalog order with how many models and public Tests it has."""
    model_counts = dict(
        session.exec(
            select(CatalogModel.family_id, func.count()).group_by(CatalogModel.family_id)
        ).all()
    )
    test_counts = _public_counts(session, Test.family_id)
    families = session.exec(
        select(ModelFamily).order_by(col(ModelFamily.position), col(ModelFamily.name))
    ).all()
    return [
        _family_summary(family, model_counts.get(family.id, 0), test_counts.get(family.id, 0))
        for family in families
    ]


def _model_summaries(
    session: Session, family: ModelFamily, models: list[CatalogModel]
) -> list[ModelSummary]:
    test_counts = _public_counts(session, Test.catalog_model_id)
    model_ids = [model.id for model in models]
    versions: dict[str, list[str]] = {model_id: [] for model_id in model_ids}
    for version in session.exec(
        select(ModelVersion)
        .where(col(ModelVersion.model_id).in_(model_ids))
        .order_by(col(ModelVersion.slug).desc())
    ).all():
        versions[version.model_id].append(version.name)
    return [
        ModelSummary(
            model.slug,
            model.name,
            family.slug,
            family.name,
            versions[model.id],
            test_counts.get(model.id, 0),
        )
        for model in models
    ]


def _family(session: Session, slug: str) -> ModelFamily | None:
    return session.exec(select(ModelFamily).where(ModelFamily.slug == slug)).first()


def _model_and_family(session: Session, slug: str) -> tuple[CatalogModel, ModelFamily] | None:
    row = session.exec(
        select(CatalogModel, ModelFamily)
        .join(ModelFamily, col(ModelFamily.id) == CatalogModel.family_id)
        .where(CatalogModel.slug == slug)
    ).first()
    return (row[0], row[1]) if row is not None else None


def has_catalog_page(session: Session, slug: str) -> bool:
    """Whether ``/models/{slug}`` names a family or a catalog model."""
    return _family(session, slug) is not None or _model_and_family(session, slug) is not None


def family_detail(
    session: Session, slug: str, cursor: str | None = None, limit: int = 20, sort: str = ""
) -> FamilyDetail | None:
    """A family, its models and a page of its public Tests in the feed's ``sort``; None when
    the slug is unknown.

    Raises ``Invalid`` (``invalid_cursor``) for a malformed cursor.
    """
    family = _family(session, slug)
    if family is None:
        return None
    models = list(
        session.exec(
            select(CatalogModel)
            .where(CatalogModel.family_id == family.id)
            .order_by(col(CatalogModel.name))
        ).all()
    )
    summaries = _model_summaries(session, family, models)
    test_count = _public_counts(session, Test.family_id).get(family.id, 0)
    return FamilyDetail(
        family=_family_summary(family, len(models), test_count),
        models=summaries,
        page=list_feed(session, FeedFilters(family=slug, sort=sort), cursor, limit),
    )


def model_detail(
    session: Session, slug: str, cursor: str | None = None, limit: int = 20, sort: str = ""
) -> ModelDetail | None:
    """A catalog model and a page of its public Tests in the feed's ``sort``; None when the
    slug is unknown.

    Family and model slugs never collide, so /models/{slug} can try ``family_detail`` first.
    Raises ``Invalid`` (``invalid_cursor``) for a malformed cursor.
    """
    found = _model_and_family(session, slug)
    if found is None:
        return None
    model, family = found
    return ModelDetail(
        model=_model_summaries(session, family, [model])[0],
        page=list_feed(session, FeedFilters(model=slug, sort=sort), cursor, limit),
    )


def _unmatched(
    session: Session, kind: LabelKind, key: object, label: object, link: object, limit: int
) -> list[DeclaredLabel]:
    count = func.count().label("test_count")
    rows = session.exec(
        # key and label are columns chosen by the caller; select's overloads want typed ones
        select(key, func.min(label), count)  # type: ignore[call-overload]
        .where(
            col(Test.state) == TestState.PUBLIC,
            col(link).is_(None),
            key != "",
        )
        .group_by(key)
        .order_by(count.desc(), key)
        .limit(limit)
    ).all()
    return [DeclaredLabel(str(kind), text, row_key, total) for row_key, text, total in rows]


def declared_unmatched_labels(session: Session, limit: int = 50) -> list[DeclaredLabel]:
    """Model and harness labels of public Tests that link to nothing, most used first.

    ``limit`` applies to each kind, so many odd model names cannot hide the harness ones.
    """
    limit = max(1, min(limit, 500))
    return _unmatched(
        session, LabelKind.MODEL, Test.model_key, Test.model_label, Test.catalog_model_id, limit
    ) + _unmatched(
        session, LabelKind.HARNESS, Test.harness_key, Test.harness_label, Test.harness_id, limit
    )


def _mappings_matching(session: Session, kind: LabelKind, prefix: str) -> list[LabelMapping]:
    """Mappings whose key, or any word of it, starts with the typed prefix.

    Keys hold only letters, digits and spaces, so the prefix needs no LIKE escaping.
    """
    key = normalise_label(prefix)[:100]
    if not key:
        return []
    label = col(LabelMapping.normalized_label)
    return list(
        session.exec(
            select(LabelMapping)
            .where(
                LabelMapping.kind == kind,
                or_(label.like(f"{key}%"), label.like(f"% {key}%")),
            )
            .order_by(label)
            .limit(_SUGGESTION_SCAN)
        ).all()
    )


def _rank(mapping: LabelMapping, prefix: str, own_name: str) -> tuple[bool, bool, str]:
    """Labels that start with the typed text first, then an entry's own name before aliases."""
    label = mapping.normalized_label
    return (
        not label.startswith(normalise_label(prefix)),
        label != normalise_label(own_name),
        label,
    )


def _best(
    ranked: list[tuple[tuple[object, ...], object, Suggestion]], limit: int
) -> list[Suggestion]:
    """The best-ranked suggestion per catalog entry, in rank order."""
    chosen: dict[object, Suggestion] = {}
    for _rank_key, target, suggestion in sorted(ranked, key=lambda item: item[0]):
        chosen.setdefault(target, suggestion)
    return list(chosen.values())[: max(1, min(limit, _MAX_SUGGESTIONS))]


def suggest_models(session: Session, prefix: str, limit: int = 10) -> list[Suggestion]:
    """Catalog models, and versions when a version identifier was typed, for autocomplete."""
    ranked: list[tuple[tuple[object, ...], object, Suggestion]] = []
    for mapping in _mappings_matching(session, LabelKind.MODEL, prefix):
        model = session.get(CatalogModel, mapping.model_id) if mapping.model_id else None
        family = session.get(ModelFamily, model.family_id) if model else None
        if model is None or family is None:
            continue
        version_id = mapping.model_version_id
        version = session.get(ModelVersion, version_id) if version_id else None
        own_name = version.name if version else model.name
        suggestion = Suggestion(
            model.slug, model.name, version.name if version else "", family.name
        )
        rank = (version is not None, *_rank(mapping, prefix, own_name))
        ranked.append((rank, (model.id, version_id), suggestion))
    return _best(ranked, limit)


def suggest_harnesses(session: Session, prefix: str, limit: int = 10) -> list[Suggestion]:
    """Harnesses whose name or an alias starts with what was typed."""
    ranked: list[tuple[tuple[object, ...], object, Suggestion]] = []
    for mapping in _mappings_matching(session, LabelKind.HARNESS, prefix):
        harness = session.get(Harness, mapping.harness_id) if mapping.harness_id else None
        if harness is not None:
            suggestion = Suggestion(harness.slug, harness.name)
            ranked.append((_rank(mapping, prefix, harness.name), harness.id, suggestion))
    return _best(ranked, limit)
