"""The catalog: ``browse`` lists families, models and unmatched labels and suggests names,
``linking`` ties a declared setup to catalog entries, ``seed`` writes the starting catalog.

It normalises labels and never restricts what may be submitted.
"""

from benchmax.services.catalog.browse import (
    DeclaredLabel,
    FamilyDetail,
    FamilySummary,
    ModelDetail,
    ModelSummary,
    Suggestion,
    catalog_names,
    declared_unmatched_labels,
    family_detail,
    family_options,
    has_catalog_page,
    list_families,
    model_detail,
    suggest_harnesses,
    suggest_models,
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
    "family_options",
    "has_catalog_page",
    "list_families",
    "model_detail",
    "suggest_harnesses",
    "suggest_models",
]
