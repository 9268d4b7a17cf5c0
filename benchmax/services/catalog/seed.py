"""The starting catalog: model families, models, their API versions and common harnesses.

The catalog only describes; a label missing here still publishes and is listed as declared.
So the data favours entries we are sure of over completeness. A model's ``versions`` are the
dated or suffixed API identifiers that name one snapshot of it; ``aliases`` are other ways
people write the model's name. Every name, slug, version and alias becomes a ``LabelMapping``.

``seed_catalog`` only ever inserts what is missing, so it is safe to run on every start and
never overwrites a mapping a moderator has since changed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlmodel import Session, SQLModel, select

from benchmax.models import (
    CatalogModel,
    Harness,
    LabelKind,
    LabelMapping,
    ModelFamily,
    ModelVersion,
)
from benchmax.services.labels import MAPPING_KEY_LENGTH, label_key

Row = TypeVar("Row", bound=SQLModel)


@dataclass(frozen=True)
class SeedModel:
    slug: str
    name: str
    versions: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class SeedFamily:
    slug: str
    name: str
    vendor: str
    models: tuple[SeedModel, ...]


@dataclass(frozen=True)
class SeedHarness:
    slug: str
    name: str
    aliases: tuple[str, ...] = ()


FAMILIES: tuple[SeedFamily, ...] = (
    SeedFamily(
        "gpt",
        "GPT",
        "OpenAI",
        (
            SeedModel("gpt-5-2", "GPT-5.2"),
            SeedModel("gpt-5-1", "GPT-5.1", ("gpt-5.1-2025-11-13",)),
            SeedModel("gpt-5-1-codex-max", "GPT-5.1-Codex-Max"),
            SeedModel("gpt-5-1-codex", "GPT-5.1-Codex"),
            SeedModel("gpt-5", "GPT-5", ("gpt-5-2025-08-07",)),
            SeedModel("gpt-5-codex", "GPT-5-Codex"),
            SeedModel("gpt-5-mini", "GPT-5 mini", ("gpt-5-mini-2025-08-07",)),
            SeedModel("gpt-5-nano", "GPT-5 nano", ("gpt-5-nano-2025-08-07",)),
            SeedModel("gpt-4-1", "GPT-4.1", ("gpt-4.1-2025-04-14",)),
            SeedModel("gpt-4o", "GPT-4o", ("gpt-4o-2024-11-20", "gpt-4o-2024-08-06")),
            SeedModel("openai-o3", "OpenAI o3", ("o3-2025-04-16",), ("o3",)),
            SeedModel("openai-o4-mini", "OpenAI o4-mini", ("o4-mini-2025-04-16",), ("o4-mini",)),
            SeedModel("gpt-oss-120b", "gpt-oss-120b"),
            SeedModel("gpt-oss-20b", "gpt-oss-20b"),
        ),
    ),
    SeedFamily(
        "claude",
        "Claude",
        "Anthropic",
        (
            SeedModel(
                "claude-opus-4-5",
                "Claude Opus 4.5",
                ("claude-opus-4-5-20251101",),
                ("Opus 4.5", "Claude 4.5 Opus"),
            ),
            SeedModel(
                "claude-sonnet-4-5",
                "Claude Sonnet 4.5",
                ("claude-sonnet-4-5-20250929",),
                ("Sonnet 4.5", "Claude 4.5 Sonnet"),
            ),
            SeedModel(
                "claude-haiku-4-5",
                "Claude Haiku 4.5",
                ("claude-haiku-4-5-20251001",),
                ("Haiku 4.5", "Claude 4.5 Haiku"),
            ),
            SeedModel(
                "claude-opus-4-1",
                "Claude Opus 4.1",
                ("claude-opus-4-1-20250805",),
                ("Opus 4.1", "Claude 4.1 Opus"),
            ),
            SeedModel(
                "claude-opus-4",
                "Claude Opus 4",
                ("claude-opus-4-20250514",),
                ("Opus 4", "Claude 4 Opus"),
            ),
            SeedModel(
                "claude-sonnet-4",
                "Claude Sonnet 4",
                ("claude-sonnet-4-20250514",),
                ("Sonnet 4", "Claude 4 Sonnet"),
            ),
            SeedModel(
                "claude-3-7-sonnet",
                "Claude 3.7 Sonnet",
                ("claude-3-7-sonnet-20250219",),
                ("Sonnet 3.7", "Claude Sonnet 3.7"),
            ),
        ),
    ),
    SeedFamily(
        "gemini",
        "Gemini",
        "Google",
        (
            SeedModel("gemini-3-pro", "Gemini 3 Pro", ("gemini-3-pro-preview",)),
            SeedModel("gemini-3-flash", "Gemini 3 Flash", ("gemini-3-flash-preview",)),
            SeedModel("gemini-2-5-pro", "Gemini 2.5 Pro"),
            SeedModel("gemini-2-5-flash", "Gemini 2.5 Flash"),
            SeedModel("gemini-2-5-flash-lite", "Gemini 2.5 Flash-Lite"),
        ),
    ),
    SeedFamily(
        "kimi",
        "Kimi",
        "Moonshot AI",
        (
            SeedModel("kimi-k2-thinking", "Kimi K2 Thinking"),
            SeedModel(
                "kimi-k2",
                "Kimi K2",
                ("kimi-k2-0905-preview", "kimi-k2-0711-preview"),
                ("Kimi-K2-Instruct",),
            ),
        ),
    ),
    SeedFamily(
        "glm",
        "GLM",
        "Zhipu AI (Z.ai)",
        (
            SeedModel("glm-4-6", "GLM-4.6"),
            SeedModel("glm-4-5", "GLM-4.5"),
            SeedModel("glm-4-5-air", "GLM-4.5-Air"),
        ),
    ),
    SeedFamily(
        "minimax",
        "MiniMax",
        "MiniMax",
        (
            SeedModel("minimax-m2", "MiniMax-M2"),
            SeedModel("minimax-m1", "MiniMax-M1", ("MiniMax-M1-80k", "MiniMax-M1-40k")),
        ),
    ),
    SeedFamily(
        "qwen",
        "Qwen",
        "Alibaba",
        (
            SeedModel("qwen3-max", "Qwen3-Max"),
            SeedModel(
                "qwen3-coder",
                "Qwen3-Coder",
                ("qwen3-coder-480b-a35b-instruct", "qwen3-coder-plus"),
            ),
            SeedModel(
                "qwen3-235b-a22b",
                "Qwen3-235B-A22B",
                ("qwen3-235b-a22b-instruct-2507", "qwen3-235b-a22b-thinking-2507"),
            ),
            SeedModel("qwq-32b", "QwQ-32B"),
        ),
    ),
    SeedFamily(
        "deepseek",
        "DeepSeek",
        "DeepSeek",
        (
            SeedModel("deepseek-v3-2", "DeepSeek-V3.2", ("deepseek-v3.2-exp",)),
            SeedModel("deepseek-v3-1", "DeepSeek-V3.1", ("deepseek-v3.1-terminus",)),
            SeedModel("deepseek-r1", "DeepSeek-R1", ("deepseek-r1-0528",)),
            SeedModel("deepseek-v3", "DeepSeek-V3", ("deepseek-v3-0324",)),
        ),
    ),
)

HARNESSES: tuple[SeedHarness, ...] = (
    SeedHarness("claude-code", "Claude Code", ("Claude Code CLI",)),
    SeedHarness("codex-cli", "Codex CLI", ("Codex", "OpenAI Codex", "OpenAI Codex CLI")),
    SeedHarness("cursor", "Cursor", ("Cursor IDE", "Cursor Agent")),
    SeedHarness("aider", "Aider", ("aider-chat",)),
    SeedHarness("cline", "Cline"),
    SeedHarness("roo-code", "Roo Code", ("Roo", "RooCode", "Roo Cline")),
    SeedHarness("kilo-code", "Kilo Code", ("KiloCode",)),
    SeedHarness("gemini-cli", "Gemini CLI"),
    SeedHarness("qwen-code", "Qwen Code", ("Qwen Code CLI",)),
    SeedHarness("openhands", "OpenHands", ("Open Hands", "OpenDevin")),
    SeedHarness("opencode", "OpenCode", ("Open Code", "sst opencode")),
    SeedHarness("amp", "Amp", ("Ampcode", "Sourcegraph Amp")),
    SeedHarness("goose", "Goose", ("Block Goose",)),
    SeedHarness("continue", "Continue", ("Continue.dev",)),
    SeedHarness("zed", "Zed", ("Zed Editor", "Zed Agent")),
    SeedHarness("windsurf", "Windsurf", ("Codeium Windsurf", "Windsurf Cascade", "Cascade")),
    SeedHarness(
        "github-copilot",
        "GitHub Copilot",
        ("Copilot", "Copilot Chat", "GitHub Copilot Chat", "VS Code Copilot", "Copilot Agent"),
    ),
    SeedHarness(
        "chatgpt-web",
        "ChatGPT (web)",
        ("ChatGPT", "ChatGPT web", "Chat GPT", "chatgpt.com", "chat.openai.com", "ChatGPT app"),
    ),
    SeedHarness(
        "claude-ai-web",
        "Claude.ai (web)",
        ("Claude.ai", "Claude web", "Claude app", "Claude"),
    ),
    SeedHarness(
        "gemini-web",
        "Gemini (web)",
        ("Gemini", "Gemini app", "Gemini web", "gemini.google.com"),
    ),
    SeedHarness("google-ai-studio", "Google AI Studio", ("AI Studio", "AIStudio")),
    SeedHarness(
        "api-direct",
        "API (direct)",
        ("API", "Raw API", "API direct", "Direct API", "API call", "Vendor API"),
    ),
    SeedHarness("openrouter", "OpenRouter", ("OpenRouter chat", "OpenRouter API")),
    SeedHarness("lmarena", "LMArena", ("LM Arena", "Chatbot Arena", "LMSYS Arena")),
    SeedHarness("devin", "Devin"),
    SeedHarness("warp", "Warp", ("Warp terminal",)),
)


class _Seeder:
    """Inserts missing rows and counts them; one instance per ``seed_catalog`` call."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.created: Counter[str] = Counter()
        self.mapped = {
            (str(kind), key)
            for kind, key in session.exec(
                select(LabelMapping.kind, LabelMapping.normalized_label)
            ).all()
        }

    def ensure(self, table: type[Row], counter: str, where: dict[str, Any], **values: Any) -> Row:
        row = self.session.exec(select(table).filter_by(**where)).first()
        if row is None:
            row = table(**where, **values)
            self.session.add(row)
            # No relationships tell the unit of work to insert parents first, so flush now.
            self.session.flush()
            self.created[counter] += 1
        return row

    def map_labels(self, kind: LabelKind, labels: tuple[str, ...], **target: Any) -> None:
        """Map each label not yet mapped; the first entry to claim a key keeps it."""
        for label in labels:
            key = label_key(label, MAPPING_KEY_LENGTH)
            if key and (str(kind), key) not in self.mapped:
                self.mapped.add((str(kind), key))
                self.session.add(LabelMapping(kind=kind, normalized_label=key, **target))
                self.created["mappings"] += 1

    def family(self, position: int, seed: SeedFamily) -> None:
        family = self.ensure(
            ModelFamily,
            "families",
            {"slug": seed.slug},
            name=seed.name,
            vendor=seed.vendor,
            position=position,
        )
        for model_seed in seed.models:
            self.model(family, model_seed)

    def model(self, family: ModelFamily, seed: SeedModel) -> None:
        model = self.ensure(
            CatalogModel, "models", {"slug": seed.slug}, family_id=family.id, name=seed.name
        )
        self.map_labels(LabelKind.MODEL, (seed.name, seed.slug, *seed.aliases), model_id=model.id)
        for version_slug in seed.versions:
            version = self.ensure(
                ModelVersion,
                "versions",
                {"model_id": model.id, "slug": version_slug},
                name=version_slug,
            )
            self.map_labels(
                LabelKind.MODEL, (version_slug,), model_id=model.id, model_version_id=version.id
            )

    def harness(self, seed: SeedHarness) -> None:
        harness = self.ensure(Harness, "harnesses", {"slug": seed.slug}, name=seed.name)
        self.map_labels(
            LabelKind.HARNESS, (seed.name, seed.slug, *seed.aliases), harness_id=harness.id
        )


def seed_catalog(session: Session) -> dict[str, int]:
    """Insert the missing part of the starting catalog; returns rows created per table.

    The caller commits. A second run creates nothing and returns zeros.
    """
    seeder = _Seeder(session)
    for position, family in enumerate(FAMILIES):
        seeder.family(position, family)
    for harness in HARNESSES:
        seeder.harness(harness)
    session.flush()
    counters = ("families", "models", "versions", "harnesses", "mappings")
    return {name: seeder.created[name] for name in counters}
