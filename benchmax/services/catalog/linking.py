"""Linking a submission's declared setup to the catalog.

Linking standardises names so Tests can be grouped and filtered; it never proves anything and
never refuses a label. Labels stay verbatim on the Test; links are empty when nothing matches.
How labels match is decided in ``benchmax.services.labels``.
"""

from __future__ import annotations

from sqlmodel import Session, select

from benchmax.models import CatalogModel, ModelVersion, Test
from benchmax.services.labels import (
    find_harness_mapping,
    find_model_mapping,
    infer_family_id,
    label_key,
    normalise_label,
)


def _version_id(session: Session, model_id: str, version_label: str) -> str | None:
    """The one version of a model whose identifier equals or ends with the declared version.

    "20250929" finds ``claude-sonnet-4-5-20250929``; a label matching several finds none.
    """
    wanted = normalise_label(version_label)
    if not wanted:
        return None
    versions = session.exec(select(ModelVersion).where(ModelVersion.model_id == model_id)).all()
    matches = [
        version.id
        for version in versions
        if any(
            key == wanted or key.endswith(f" {wanted}")
            for key in (normalise_label(version.slug), normalise_label(version.name))
        )
    ]
    return matches[0] if len(matches) == 1 else None


def link_declared_setup(session: Session, test: Test) -> None:
    """Fill the Test's catalog links and filter keys from its declared labels.

    Run whenever the labels change. Labels stay as typed; links are cleared when nothing
    matches, and the family is then inferred from the model label when it names one.
    """
    test.model_key = label_key(test.model_label, 200)
    test.harness_key = label_key(test.harness_label, 200)
    test.reasoning_key = label_key(test.reasoning_label, 100)
    mapping = find_model_mapping(session, test.model_label, test.model_version_label)
    model = session.get(CatalogModel, mapping.model_id) if mapping and mapping.model_id else None
    if model is None:
        test.catalog_model_id = test.model_version_id = None
        test.family_id = infer_family_id(session, test.model_label)
    else:
        test.catalog_model_id = model.id
        test.model_version_id = (mapping.model_version_id if mapping else None) or _version_id(
            session, model.id, test.model_version_label
        )
        test.family_id = model.family_id
    harness_mapping = find_harness_mapping(session, test.harness_label)
    test.harness_id = harness_mapping.harness_id if harness_mapping else None
