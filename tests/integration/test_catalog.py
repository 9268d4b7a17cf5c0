"""The catalog on a real database: seeding, linking declared labels, listings and suggestions."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import Session, func, select

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
from benchmax.services.catalog import (
    declared_unmatched_labels,
    family_detail,
    list_families,
    model_detail,
    suggest_harnesses,
    suggest_models,
)
from benchmax.services.catalog.linking import link_declared_setup
from benchmax.services.catalog.seed import seed_catalog
from tests.support.factories import make_test

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)


@pytest.fixture
def catalog(session: Session) -> Session:
    seed_catalog(session)
    return session


def _linked(session: Session, **labels: Any) -> Test:
    test = make_test(session, **labels)
    link_declared_setup(session, test)
    session.flush()
    return test


def _slug(session: Session, table: Any, row_id: str | None) -> str | None:
    row = session.get(table, row_id) if row_id else None
    return row.slug if row else None


def _table_count(session: Session, table: Any) -> int:
    return session.exec(select(func.count()).select_from(table)).one()


@BOTH
def test_seed_is_idempotent(session: Session) -> None:
    first = seed_catalog(session)
    session.commit()
    totals = {table: _table_count(session, table) for table in (ModelFamily, LabelMapping)}

    second = seed_catalog(session)
    session.commit()

    assert first["families"] >= 8
    assert first["harnesses"] >= 12
    assert first["mappings"] > first["models"] + first["harnesses"]
    assert set(second.values()) == {0}
    assert {table: _table_count(session, table) for table in totals} == totals


def test_seed_never_overwrites_a_changed_mapping(session: Session) -> None:
    seed_catalog(session)
    mapping = session.exec(
        select(LabelMapping).where(
            LabelMapping.kind == LabelKind.HARNESS, LabelMapping.normalized_label == "copilot"
        )
    ).one()
    cursor = session.exec(select(Harness).where(Harness.slug == "cursor")).one()
    mapping.harness_id = cursor.id  # a moderator re-pointed the alias
    session.flush()

    seed_catalog(session)

    session.refresh(mapping)
    assert mapping.harness_id == cursor.id


@pytest.mark.parametrize(
    ("labels", "family", "model", "version", "harness"),
    [
        ({"model_label": "Claude Sonnet 4.5"}, "claude", "claude-sonnet-4-5", None, "claude-code"),
        ({"model_label": "claude_sonnet-4.5"}, "claude", "claude-sonnet-4-5", None, "claude-code"),
        ({"model_label": "sonnet 4.5"}, "claude", "claude-sonnet-4-5", None, "claude-code"),
        (
            {"model_label": "claude-sonnet-4-5-20250929"},
            "claude",
            "claude-sonnet-4-5",
            "claude-sonnet-4-5-20250929",
            "claude-code",
        ),
        (
            {"model_label": "Claude Sonnet 4.5", "model_version_label": "20250929"},
            "claude",
            "claude-sonnet-4-5",
            "claude-sonnet-4-5-20250929",
            "claude-code",
        ),
        (
            {"model_label": "Claude Sonnet", "model_version_label": "4.5"},
            "claude",
            "claude-sonnet-4-5",
            None,
            "claude-code",
        ),
        (
            {"model_label": "anthropic/claude-sonnet-4.5", "harness_label": "OpenRouter"},
            "claude",
            "claude-sonnet-4-5",
            None,
            "openrouter",
        ),
        ({"model_label": "GPT5", "harness_label": "codex"}, "gpt", "gpt-5", None, "codex-cli"),
        (
            {"model_label": "gpt-7-ultra-preview", "harness_label": "ChatGPT"},
            "gpt",
            None,
            None,
            "chatgpt-web",
        ),
        (
            {"model_label": "openrouter/z-ai/glm-9", "harness_label": "raw API"},
            "glm",
            None,
            None,
            "api-direct",
        ),
        (
            {"model_label": "DeepSeek-R1-Distill-Qwen-32B", "harness_label": "my own scripts"},
            "deepseek",
            None,
            None,
            None,
        ),
        ({"model_label": "Llama 4 Maverick", "harness_label": "ollama"}, None, None, None, None),
        (
            {"model_label": "Claude Sonnet 4.5", "model_version_label": "nightly"},
            "claude",
            "claude-sonnet-4-5",
            None,
            "claude-code",
        ),
    ],
)
def test_link_declared_setup(
    catalog: Session,
    labels: dict[str, str],
    family: str | None,
    model: str | None,
    version: str | None,
    harness: str | None,
) -> None:
    test = _linked(catalog, **labels)

    assert _slug(catalog, ModelFamily, test.family_id) == family
    assert _slug(catalog, CatalogModel, test.catalog_model_id) == model
    assert _slug(catalog, ModelVersion, test.model_version_id) == version
    assert _slug(catalog, Harness, test.harness_id) == harness
    assert test.model_label == labels["model_label"]  # labels are kept verbatim


@BOTH
def test_unmatched_labels_stay_declared(catalog: Session) -> None:
    test = _linked(
        catalog,
        model_label="My Finetune v2",
        harness_label="homegrown-agent",
        reasoning_label="Max",
    )
    catalog.commit()

    stored = catalog.get(Test, test.id)
    assert stored is not None
    assert (stored.model_label, stored.harness_label) == ("My Finetune v2", "homegrown-agent")
    assert (stored.catalog_model_id, stored.harness_id, stored.family_id) == (None, None, None)
    assert (stored.model_key, stored.harness_key, stored.reasoning_key) == (
        "my finetune v 2",
        "homegrown agent",
        "max",
    )


def test_relinking_clears_links_the_new_labels_do_not_support(catalog: Session) -> None:
    test = _linked(catalog, model_label="GPT-5", harness_label="Cursor")
    test.model_label, test.harness_label = "something else", "somewhere else"
    link_declared_setup(catalog, test)

    assert (test.family_id, test.catalog_model_id, test.harness_id) == (None, None, None)


@BOTH
def test_declared_unmatched_labels_counts_public_tests_only(catalog: Session) -> None:
    for spelling in ("Mystery-Model 1", "mystery model 1"):
        _linked(catalog, model_label=spelling, harness_label="Homegrown")
    _linked(catalog, model_label="mystery model 1", state=TestState.PROCESSING)
    _linked(catalog, model_label="Other Thing", harness_label="Claude Code")
    _linked(catalog, model_label="GPT-5", harness_label="Claude Code")

    labels = {(d.kind, d.key): d for d in declared_unmatched_labels(catalog)}

    assert set(labels) == {
        ("model", "mystery model 1"),
        ("model", "other thing"),
        ("harness", "homegrown"),
    }
    mystery = labels["model", "mystery model 1"]
    assert (mystery.label, mystery.test_count) == ("Mystery-Model 1", 2)
    assert labels["harness", "homegrown"].test_count == 2
    models = [d.key for d in declared_unmatched_labels(catalog) if d.kind == "model"]
    assert models == ["mystery model 1", "other thing"]  # most used first


def test_declared_unmatched_labels_limit_is_per_kind(catalog: Session) -> None:
    for n in range(3):
        _linked(catalog, model_label=f"unknown model {n}", harness_label=f"unknown harness {n}")

    labels = declared_unmatched_labels(catalog, limit=2)

    assert [d.kind for d in labels] == ["model", "model", "harness", "harness"]


@BOTH
def test_list_families_counts_models_and_public_tests(catalog: Session) -> None:
    _linked(catalog, model_label="Claude Opus 4.5")
    _linked(catalog, model_label="claude-9-hypothetical")  # family inferred
    _linked(catalog, model_label="Claude Opus 4.5", state=TestState.NEEDS_ATTENTION)

    families = {family.slug: family for family in list_families(catalog)}

    assert list(families)[:2] == ["gpt", "claude"]  # catalog order
    assert families["claude"].public_test_count == 2
    assert families["claude"].model_count == 7
    assert families["gemini"].public_test_count == 0
    assert families["gpt"].vendor == "OpenAI"


@BOTH
def test_family_and_model_detail_page_their_public_tests(catalog: Session) -> None:
    opus = [_linked(catalog, model_label="Claude Opus 4.5") for _ in range(3)]
    _linked(catalog, model_label="Claude Haiku 4.5")
    _linked(catalog, model_label="GPT-5")

    family = family_detail(catalog, "claude", limit=2)
    model = model_detail(catalog, "claude-opus-4-5")

    assert family is not None
    assert model is not None
    assert family.family.public_test_count == 4
    assert len(family.page.items) == 2
    assert family.page.next_cursor is not None
    rest = family_detail(catalog, "claude", cursor=family.page.next_cursor, limit=2)
    assert rest is not None
    assert len(rest.page.items) == 2
    assert rest.page.next_cursor is None
    by_slug = {summary.slug: summary for summary in family.models}
    assert by_slug["claude-opus-4-5"].public_test_count == 3
    assert by_slug["claude-opus-4-5"].versions == ["claude-opus-4-5-20251101"]
    assert {card.id for card in model.page.items} == {test.id for test in opus}
    assert (model.model.family_slug, model.model.name) == ("claude", "Claude Opus 4.5")


def test_unknown_slugs_have_no_detail(catalog: Session) -> None:
    assert family_detail(catalog, "nope") is None
    assert model_detail(catalog, "claude") is None  # a family slug is not a model slug


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        ("sonn", {"Claude Sonnet 4.5", "Claude Sonnet 4", "Claude 3.7 Sonnet"}),
        ("Claude Son", {"Claude Sonnet 4.5", "Claude Sonnet 4", "Claude 3.7 Sonnet"}),
        ("claude 3", {"Claude 3.7 Sonnet"}),
        ("gemini-2.5-fl", {"Gemini 2.5 Flash", "Gemini 2.5 Flash-Lite"}),
        ("kimi k2", {"Kimi K2", "Kimi K2 Thinking"}),
        ("zzz", set()),
        ("", set()),
        ("%", set()),
    ],
)
def test_suggest_models(catalog: Session, prefix: str, expected: set[str]) -> None:
    labels = {s.label for s in suggest_models(catalog, prefix, limit=20) if not s.version_label}
    assert labels == expected


def test_model_suggestions_put_word_starts_after_label_starts_and_carry_versions(
    catalog: Session,
) -> None:
    suggestions = suggest_models(catalog, "claude-sonnet-4-5-2", limit=5)

    assert [(s.slug, s.version_label, s.detail) for s in suggestions] == [
        ("claude-sonnet-4-5", "claude-sonnet-4-5-20250929", "Claude")
    ]
    assert suggest_models(catalog, "sonnet")[0].label.startswith("Claude")
    assert len(suggest_models(catalog, "g", limit=3)) == 3


def test_suggest_harnesses(catalog: Session) -> None:
    assert [s.slug for s in suggest_harnesses(catalog, "claude c")] == ["claude-code"]
    assert {s.slug for s in suggest_harnesses(catalog, "copilot")} == {"github-copilot"}
    coding = [s.label for s in suggest_harnesses(catalog, "cod", limit=20)]
    assert coding[:2] == ["Codex CLI", "Windsurf"]  # name, then an alias ("Codeium Windsurf")
    assert "Claude Code" in coding  # a later word of the name
