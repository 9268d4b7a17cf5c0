"""Identity blinding: names that could sway a judge become neutral tokens before it reads.

False model-identity labels moved quality ratings by up to 12 points in the literature, so
the judge never learns which model, vendor, harness or contributor a Test is about. The
names come from the catalog (family names, vendors, model names, slugs, dated versions,
harness names and every alias mapping), from the Test's own declared labels, and from the
contributor's handle and display name. Matching follows ``labels.normalise_label``: case,
punctuation, spacing and letter/digit boundaries do not matter, so "Claude-Sonnet 4.5",
"claude_sonnet_4.5" and "CLAUDESONNET45"-style spellings of a name all match, and longer
names win over their prefixes ("GPT-5.1" before "GPT-5").

A few catalog names are ordinary words ("Continue", "Cursor", "API", "Warp"...). Blinding
them everywhere would garble code and prose, so they are blinded only in a Test that
declared them. Text in images cannot be blinded; the methodology page says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from sqlmodel import Session

from benchmax.models import Test, User
from benchmax.services import catalog
from benchmax.services.judge.prompt import EvidenceSection
from benchmax.services.labels import normalise_label

BLINDING_VERSION = "blind-v1"
MODEL, VENDOR, HARNESS, CONTRIBUTOR = "[MODEL]", "[VENDOR]", "[HARNESS]", "[CONTRIBUTOR]"
_TOKENS = {"model": MODEL, "vendor": VENDOR, "harness": HARNESS}
_MIN_KEY_LENGTH = 2  # "o3" is a model
# Catalog names that are also everyday or programming words; blinded only when declared.
GENERIC_WORDS = frozenset(
    {
        "api", "api call", "api direct", "direct api", "raw api", "vendor api", "continue",
        "cursor", "warp", "goose", "amp", "zed", "roo", "cascade", "devin", "open code",
        "codex", "claude", "gemini", "copilot", "chatgpt",
    }
)  # fmt: skip
_NAME_CHAR = r"[^\W_]"


def _pattern(key: str) -> str:
    """A regex for every spelling whose normalised key is ``key``."""
    tokens = key.split()
    return r"[\W_]*".join(re.escape(token) for token in tokens)


@dataclass
class Blinder:
    """Replaces every known name in a text with its token; build one per Test."""

    regex: re.Pattern[str] | None
    tokens: dict[str, str]

    def _token(self, match: re.Match[str]) -> str:
        # A match normalises back to its key unless separators were dropped ("GPT5").
        key = normalise_label(match.group(0))
        return self.tokens.get(key) or self.tokens.get(key.replace(" ", ""), MODEL)

    def blind(self, text: str) -> str:
        if self.regex is None or not text:
            return text
        return self.regex.sub(self._token, text)

    def blind_sections(self, sections: Iterable[EvidenceSection]) -> list[EvidenceSection]:
        return [EvidenceSection(self.blind(s.label), self.blind(s.text)) for s in sections]


def build_blinder(names: dict[str, str]) -> Blinder:
    """A blinder for ``names`` (normalised key -> token), longest names tried first."""
    keys = sorted(
        (key for key in names if len(key.replace(" ", "")) >= _MIN_KEY_LENGTH),
        key=lambda key: (-len(key), key),
    )
    if not keys:
        return Blinder(None, {})
    alternation = "|".join(_pattern(key) for key in keys)
    regex = re.compile(rf"(?<!{_NAME_CHAR})(?:{alternation})(?!{_NAME_CHAR})", re.IGNORECASE)
    tokens = {key.replace(" ", ""): token for key, token in names.items()}
    tokens.update(names)
    return Blinder(regex, tokens)


def _add(names: dict[str, str], text: str, token: str, declared: set[str]) -> None:
    for part in re.split(r"[()]", text or ""):
        key = normalise_label(part)
        if not key or (key in GENERIC_WORDS and key not in declared):
            continue
        # The first kind to claim a name keeps it; contributor tokens are added last.
        names.setdefault(key, token)


def catalog_names(session: Session, declared: set[str]) -> dict[str, str]:
    names: dict[str, str] = {}
    for text, kind in catalog.catalog_names(session):
        _add(names, text, _TOKENS[kind], declared)
    return names


def blinder_for_test(session: Session, test: Test) -> Blinder:
    """Blinds the catalog, this Test's declared labels and its contributor."""
    declared_labels = (test.model_label, test.model_version_label, test.harness_label)
    declared = {normalise_label(label) for label in declared_labels if label}
    names = catalog_names(session, declared)
    for label in (test.model_label, test.model_version_label):
        _add(names, label, MODEL, declared)
    _add(names, test.harness_label, HARNESS, declared)
    contributor = session.get(User, test.contributor_id)
    if contributor is not None:
        for text in (contributor.handle, contributor.display_name):
            key = normalise_label(text)
            if key:
                names[key] = CONTRIBUTOR
    return build_blinder(names)
