"""Label decisions: map a declared model or harness label to the catalog, or leave it as
declared. Mapping re-links the Tests that carry the label."""

from __future__ import annotations

import hashlib

from sqlmodel import Session, col, select

from benchmax.models import (
    CatalogModel,
    Harness,
    LabelKind,
    LabelMapping,
    ModerationAction,
    ModerationDecision,
    Test,
    User,
)
from benchmax.services.catalog.linking import link_declared_setup
from benchmax.services.errors import Conflict, Invalid, NotFound
from benchmax.services.labels import MAPPING_KEY_LENGTH, label_key
from benchmax.services.moderation.policy import clean_reason, refuse_secrets, require_admin
from benchmax.services.moderation.records import record_decision


def label_target_id(kind: str, key: str) -> str:
    """A decision's target id for a declared label: keys can outgrow the 64-character column."""
    return f"{kind}:{hashlib.sha256(key.encode()).hexdigest()[:40]}"


def _label(kind: object, label: object) -> tuple[LabelKind, str]:
    try:
        clean_kind = LabelKind(kind if isinstance(kind, str) else "")
    except ValueError:
        raise Invalid("invalid_kind", "Choose model or harness.", "kind") from None
    text = label if isinstance(label, str) else ""
    # Checked as typed: the stored key is case-folded, which can hide a key from the rules.
    refuse_secrets(text, field="label", label="label")
    key = label_key(text, MAPPING_KEY_LENGTH)
    if not key:
        raise Invalid("invalid_label", "Give the declared label to map.", "label")
    return clean_kind, key


def _relink(session: Session, kind: LabelKind, key: str) -> None:
    """Re-run catalog linking on unlinked Tests whose label could now match; linking itself
    decides (a key contained in a longer one is only a candidate)."""
    link, key_column = (
        (Test.catalog_model_id, Test.model_key)
        if kind == LabelKind.MODEL
        else (Test.harness_id, Test.harness_key)
    )
    for test in session.exec(
        select(Test).where(col(link).is_(None), col(key_column).contains(key, autoescape=True))
    ).all():
        link_declared_setup(session, test)
        session.add(test)


def map_label(
    session: Session, actor: User | None, kind: object, label: object, target: str, reason: str
) -> ModerationDecision:
    """Map a declared label to a catalog model or harness (by slug) and re-link its Tests."""
    admin = require_admin(actor, "map labels")
    clean = clean_reason(reason)
    clean_kind, key = _label(kind, label)
    existing = session.exec(
        select(LabelMapping).where(
            LabelMapping.kind == clean_kind, LabelMapping.normalized_label == key
        )
    ).first()
    if existing is not None:
        raise Conflict("already_mapped", "That label already maps to a catalog entry.")
    mapping = LabelMapping(kind=clean_kind, normalized_label=key)
    if clean_kind == LabelKind.MODEL:
        model = session.exec(select(CatalogModel).where(CatalogModel.slug == target)).first()
        if model is None:
            raise NotFound("target_not_found", "No catalog model has that slug.", "target")
        mapping.model_id = model.id
    else:
        harness = session.exec(select(Harness).where(Harness.slug == target)).first()
        if harness is None:
            raise NotFound("target_not_found", "No harness has that slug.", "target")
        mapping.harness_id = harness.id
    session.add(mapping)
    session.flush()
    _relink(session, clean_kind, key)
    return record_decision(
        session,
        admin,
        ModerationAction.LABEL_MAP,
        ("label_mapping", mapping.id),
        clean,
        ("unmatched", "mapped"),
    )


def leave_label_declared(
    session: Session, actor: User | None, kind: object, label: object, reason: str
) -> ModerationDecision:
    """Decide a label stays as declared; it leaves the label queue but keeps its Tests."""
    admin = require_admin(actor, "decide labels")
    clean = clean_reason(reason)
    clean_kind, key = _label(kind, label)
    return record_decision(
        session,
        admin,
        ModerationAction.LABEL_LEAVE,
        ("label", label_target_id(clean_kind.value, key)),
        clean,
        ("unmatched", "declared"),
    )
