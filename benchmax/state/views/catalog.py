"""What ``/models`` and ``/models/[slug]`` show of the catalog's families, models and the
declared labels it does not know yet."""

from __future__ import annotations

from dataclasses import dataclass

from benchmax.presentation.formatting import count_text
from benchmax.services.catalog import DeclaredLabel, FamilySummary, ModelSummary


@dataclass(frozen=True)
class FamilyView:
    slug: str = ""
    name: str = ""
    vendor: str = ""
    counts: str = ""  # "3 models · 12 public Tests"

    @classmethod
    def of(cls, family: FamilySummary) -> FamilyView:
        counts = (
            count_text(family.model_count, "model")
            + " · "
            + count_text(family.public_test_count, "public Test")
        )
        return cls(family.slug, family.name, family.vendor, counts)


@dataclass(frozen=True)
class DeclaredLabelView:
    """A label no catalog entry matches; ``href`` is the feed filtered by it."""

    kind: str = ""
    label: str = ""
    tests: str = ""
    href: str = ""

    @classmethod
    def of(cls, declared: DeclaredLabel) -> DeclaredLabelView:
        href = f"/?{declared.kind}={declared.key}"
        return cls(declared.kind, declared.label, str(declared.test_count), href)


@dataclass(frozen=True)
class ModelView:
    """A model of the family a page is about."""

    slug: str = ""
    name: str = ""
    tests: str = ""

    @classmethod
    def of(cls, model: ModelSummary) -> ModelView:
        return cls(model.slug, model.name, str(model.public_test_count))
