"""Identity blinding on the real catalog: no model, vendor, harness or contributor name gets by."""

from __future__ import annotations

import re

import pytest
from sqlmodel import Session

from benchmax.services.catalog.seed import FAMILIES, HARNESSES, seed_catalog
from benchmax.services.judge.blinding import GENERIC_WORDS, blinder_for_test
from benchmax.services.labels import normalise_label
from tests.support.factories import make_test, make_user


def _names() -> list[str]:
    names: list[str] = []
    for family in FAMILIES:
        names += [family.name, family.vendor.split(" (")[0]]
        for model in family.models:
            names += [model.name, model.slug, *model.versions, *model.aliases]
    for harness in HARNESSES:
        names += [harness.name, harness.slug, *harness.aliases]
    return [name for name in names if normalise_label(name) not in GENERIC_WORDS]


def _spellings(name: str) -> list[str]:
    return [name, name.lower(), name.upper(), name.replace(" ", "-"), name.replace("-", " "),
            name.replace(".", "_")]  # fmt: skip


def _contains(text: str, name: str) -> bool:
    key = normalise_label(name)
    return re.search(rf"(?<![^\W_]){re.escape(key)}(?![^\W_])", normalise_label(text)) is not None


@pytest.fixture
def seeded(session: Session) -> Session:
    seed_catalog(session)
    return session


def test_every_catalog_name_in_every_spelling_is_blinded(seeded: Session) -> None:
    test = make_test(seeded, model_label="something unlisted", harness_label="home-made")
    blinder = blinder_for_test(seeded, test)
    leaks = []
    for name in _names():
        for spelling in _spellings(name):
            blinded = blinder.blind(f"Output written by {spelling}, really.")
            if _contains(blinded, name):
                leaks.append((spelling, blinded))
    assert leaks == []


def test_tokens_say_what_was_hidden_and_ordinary_words_survive(seeded: Session) -> None:
    user = make_user(seeded, handle="grace_h", display_name="Grace Hopper")
    test = make_test(seeded, user, model_label="Claude Sonnet 4.5", harness_label="Claude Code")
    blinder = blinder_for_test(seeded, test)
    text = (
        "for x in xs:\n    continue  # move the cursor\nCall the API.\n"
        "Claude Sonnet 4.5 in Claude Code by OpenAI? No, Anthropic. Signed grace_h (Grace Hopper)."
    )
    blinded = blinder.blind(text)
    assert "continue" in blinded
    assert "cursor" in blinded
    assert "API" in blinded
    assert "[MODEL] in [HARNESS] by [VENDOR]? No, [VENDOR]." in blinded
    assert "Signed [CONTRIBUTOR] ([CONTRIBUTOR])." in blinded


def test_a_declared_generic_name_is_blinded_in_its_own_test(seeded: Session) -> None:
    test = make_test(seeded, model_label="GPT-5", harness_label="Cursor")
    blinded = blinder_for_test(seeded, test).blind("Made with Cursor; the cursor blinked.")
    assert "Cursor" not in blinded
    assert "cursor" not in blinded


def test_free_text_labels_outside_the_catalog_are_blinded_too(seeded: Session) -> None:
    test = make_test(seeded, model_label="Zephyr-Ultra 9000", harness_label="myharness v2")
    blinded = blinder_for_test(seeded, test).blind("zephyr ultra 9000 via MyHarness-v2")
    assert blinded == "[MODEL] via [HARNESS]"
