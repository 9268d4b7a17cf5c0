"""Free-text labels and the catalog entries they stand for.

This module is the one place that decides when two labels mean the same thing. Both linking a
submission (``catalog_linking.link_declared_setup``) and filtering the feed (``feed.list_feed``) go
through it, so a label that links a Test is also the label that finds it.

Rules, in order:

1. ``normalise_label`` folds a label to a key: NFKC, invisible characters dropped, casefold,
   every run of punctuation or whitespace becomes one space, and a space is put between
   letters and digits. So "Claude-Sonnet 4.5", "claude sonnet 4.5" and "CLAUDE_SONNET_4.5"
   all become ``claude sonnet 4 5``, and "GPT5" equals "GPT-5". Digits are kept, so "4.5"
   and "45" stay different.
2. A key maps to a catalog entry only through a ``LabelMapping`` row; the seed writes one for
   every name, slug and common alias, and moderators add more. Nothing is fuzzy-matched.
3. A router-style owner prefix ("anthropic/claude-sonnet-4.5", "OpenAI GPT-5") is retried
   without the words before the first family name.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence

from sqlmodel import Session, col, select

from benchmax.models import CatalogModel, Harness, LabelKind, LabelMapping, ModelFamily

# Shown wherever a declared setup is: a label or a catalog link proves nothing.
DECLARED_LABEL = "Declared by contributor — not independently verified"

# Labels are at most 200 characters; anything far longer is not a label and is cut before work.
_MAX_INPUT = 1_000
# LabelMapping.normalized_label holds at most this many characters.
MAPPING_KEY_LENGTH = 200
_SEPARATORS = re.compile(r"[\W_]+")
_LETTER_DIGIT = re.compile(r"(?<=[^\W\d_])(?=\d)|(?<=\d)(?=[^\W\d_])")


def normalise_label(text: str) -> str:
    """The comparison key of a label; see the module docstring for the rules."""
    folded = unicodedata.normalize("NFKC", text[:_MAX_INPUT])
    visible = "".join(ch for ch in folded if unicodedata.category(ch) != "Cf").casefold()
    spaced = _LETTER_DIGIT.sub(" ", visible)
    return _SEPARATORS.sub(" ", spaced).strip()


def label_key(text: str, max_length: int) -> str:
    """A normalised key cut to its column's length (splitting letters from digits can grow it)."""
    return normalise_label(text)[:max_length].rstrip()


FamilyKeys = list[tuple[tuple[str, ...], str]]


def _family_keys(session: Session) -> FamilyKeys:
    """Each family's name and slug as token tuples, longest first so "gpt oss" beats "gpt"."""
    keys: set[tuple[tuple[str, ...], str]] = set()
    for family in session.exec(select(ModelFamily)).all():
        for text in (family.name, family.slug):
            tokens = tuple(normalise_label(text).split())
            if tokens:
                keys.add((tokens, family.id))
    return sorted(keys, key=lambda item: (-len(item[0]), item[0]))


def _first_family(key: str, family_keys: FamilyKeys) -> tuple[int, str] | None:
    """Where the first word naming a family sits in ``key``, and which family it names."""
    tokens = key.split()
    for position in range(len(tokens)):
        for family_tokens, family_id in family_keys:
            if tuple(tokens[position : position + len(family_tokens)]) == family_tokens:
                return position, family_id
    return None


def infer_family_id(session: Session, model_label: str) -> str | None:
    """The family whose name is the first family word in an unknown model label.

    "gpt-5.1-codex-max" → GPT, "openrouter/z-ai/glm-4.6" → GLM. The earliest family word wins,
    so "DeepSeek-R1-Distill-Qwen-32B" is DeepSeek's. A label naming no family gets none.
    """
    found = _first_family(normalise_label(model_label), _family_keys(session))
    return found[1] if found else None


def _candidates(labels: Sequence[str], family_keys: FamilyKeys) -> list[str]:
    """Keys to try, most specific first, each followed by itself without an owner prefix."""
    keys: list[str] = []
    for label in labels:
        key = label_key(label, MAPPING_KEY_LENGTH)
        found = _first_family(key, family_keys)
        stripped = " ".join(key.split()[found[0] :]) if found and found[0] > 0 else ""
        keys.extend(k for k in (key, stripped) if k and k not in keys)
    return keys


def _first_mapping(session: Session, kind: LabelKind, keys: list[str]) -> LabelMapping | None:
    if not keys:
        return None
    rows = session.exec(
        select(LabelMapping).where(
            LabelMapping.kind == kind, col(LabelMapping.normalized_label).in_(keys)
        )
    ).all()
    by_key = {row.normalized_label: row for row in rows}
    return next((by_key[key] for key in keys if key in by_key), None)


def find_model_mapping(
    session: Session, model_label: str, version_label: str = ""
) -> LabelMapping | None:
    """The mapping for a declared model, trying "model + version" before the model alone."""
    labels = (
        [f"{model_label} {version_label}", model_label] if version_label.strip() else [model_label]
    )
    keys = _candidates(labels, _family_keys(session))
    return _first_mapping(session, LabelKind.MODEL, keys)


def find_harness_mapping(session: Session, harness_label: str) -> LabelMapping | None:
    keys = [key] if (key := label_key(harness_label, MAPPING_KEY_LENGTH)) else []
    return _first_mapping(session, LabelKind.HARNESS, keys)


def _resolve_id(
    session: Session,
    table: type[CatalogModel] | type[Harness],
    text: str,
    find: Callable[[Session, str], LabelMapping | None],
    mapped: str,
) -> str | None:
    """An entry's id from its slug, else from a label mapping that points at it."""
    by_slug = session.exec(select(table.id).where(table.slug == text)).first()
    if by_slug is not None:
        return by_slug
    mapping = find(session, text)
    return getattr(mapping, mapped) if mapping else None


def resolve_model_id(session: Session, text: str) -> str | None:
    """A catalog model id from its slug or from any label that maps to it."""
    return _resolve_id(session, CatalogModel, text, find_model_mapping, "model_id")


def resolve_harness_id(session: Session, text: str) -> str | None:
    """A harness id from its slug or from any label that maps to it."""
    return _resolve_id(session, Harness, text, find_harness_mapping, "harness_id")
