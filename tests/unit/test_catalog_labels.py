"""Label normalisation rules, and the seed data's own consistency."""

from __future__ import annotations

from collections import defaultdict

import pytest

from benchmax.services.catalog.browse import normalise_label
from benchmax.services.catalog.seed import FAMILIES, HARNESSES
from benchmax.services.labels import label_key


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(ch) + 0xFEE0) if ch != " " else ch for ch in text)


@pytest.mark.parametrize(
    ("label", "key"),
    [
        ("Claude-Sonnet 4.5", "claude sonnet 4 5"),
        ("claude sonnet 4.5", "claude sonnet 4 5"),
        ("CLAUDE_SONNET_4.5", "claude sonnet 4 5"),
        ("  claude   sonnet\t4.5\n", "claude sonnet 4 5"),
        ("claude--sonnet..4.5", "claude sonnet 4 5"),
        ("GPT5", "gpt 5"),
        ("GPT-5", "gpt 5"),
        ("gpt-4o-mini", "gpt 4 o mini"),
        ("GLM4.6", "glm 4 6"),
        ("4.5", "4 5"),
        ("45", "45"),
        ("anthropic/claude-sonnet-4.5", "anthropic claude sonnet 4 5"),
        (_fullwidth("Claude Code"), "claude code"),  # full-width letters fold under NFKC
        ("Claude\u200bCode", "claudecode"),  # a zero-width space is invisible, not a separator
        ("Straße", "strasse"),  # casefold, not lower
        ("通义千问 Qwen", "通义千问 qwen"),  # letters in any script are kept
        ("", ""),
        ("  -_.  ", ""),
    ],
)
def test_normalise_label(label: str, key: str) -> None:
    assert normalise_label(label) == key


def test_spellings_that_must_match_do() -> None:
    spellings = ["Claude-Sonnet 4.5", "claude sonnet 4.5", "CLAUDE_SONNET_4.5", "Claude Sonnet4.5"]
    assert len({normalise_label(text) for text in spellings}) == 1


def test_different_versions_stay_different() -> None:
    assert normalise_label("Claude Sonnet 4.5") != normalise_label("Claude Sonnet 4")
    assert normalise_label("GPT-4.1") != normalise_label("GPT-41")


def test_label_key_fits_its_column_even_when_splitting_grows_it() -> None:
    label = "a1" * 100  # 200 characters that become 399 once letters and digits are split
    key = label_key(label, 200)
    assert len(key) <= 200
    assert not key.endswith(" ")


def test_huge_input_is_cut_before_work() -> None:
    assert len(normalise_label("x " * 1_000_000)) < 2_000


def _seed_targets() -> dict[tuple[str, str], set[str]]:
    targets: dict[tuple[str, str], set[str]] = defaultdict(set)
    for family in FAMILIES:
        for model in family.models:
            for label in (model.name, model.slug, *model.aliases):
                targets["model", normalise_label(label)].add(model.slug)
            for version in model.versions:
                targets["model", normalise_label(version)].add(f"{model.slug}@{version}")
    for harness in HARNESSES:
        for label in (harness.name, harness.slug, *harness.aliases):
            targets["harness", normalise_label(label)].add(harness.slug)
    return targets


def test_no_seed_label_means_two_things() -> None:
    ambiguous = {key: slugs for key, slugs in _seed_targets().items() if len(slugs) > 1}
    assert ambiguous == {}


def test_family_and_model_slugs_never_collide() -> None:
    # /models/{slug} serves both, trying the family first.
    family_slugs = {family.slug for family in FAMILIES}
    model_slugs = [model.slug for family in FAMILIES for model in family.models]
    assert len(model_slugs) == len(set(model_slugs))
    assert family_slugs.isdisjoint(model_slugs)


def test_seed_covers_the_required_families_and_harnesses() -> None:
    assert {family.name for family in FAMILIES} >= {
        "GPT", "Claude", "Gemini", "Kimi", "GLM", "MiniMax", "Qwen", "DeepSeek",
    }  # fmt: skip
    assert all(len(family.models) >= 2 for family in FAMILIES)
    assert {harness.slug for harness in HARNESSES} >= {
        "claude-code", "codex-cli", "cursor", "aider", "cline", "gemini-cli", "openhands",
        "chatgpt-web", "claude-ai-web", "api-direct", "windsurf", "github-copilot",
    }  # fmt: skip
