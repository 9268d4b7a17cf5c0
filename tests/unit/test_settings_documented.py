"""``Settings``, ``.env.example`` and the README's settings table name the same variables.

An operator learns the settings from the README and copies ``.env.example``; a variable
missing from either is one nobody knows to set, and one that is in them but not in
``Settings`` is silently ignored (``extra="ignore"``).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from benchmax.settings import CoreSettings, Settings

ROOT = Path(__file__).resolve().parents[2]
PREFIX = str(Settings.model_config.get("env_prefix", ""))
NAME = re.compile(rf"\b{PREFIX}[A-Z0-9_]+\b")
# The .env.example heading after which the settings only the user-content service lacks begin.
APP_ONLY_HEADING = "# --- web app"


def env_names(model: type[CoreSettings]) -> set[str]:
    return {PREFIX + field.upper() for field in model.model_fields}


def example_lines() -> list[str]:
    return (ROOT / ".env.example").read_text(encoding="utf-8").splitlines()


def example_assignments(lines: list[str]) -> list[str]:
    """Names given a value (``NAME=value``), commented-out ones excluded."""
    return [line.split("=", 1)[0] for line in lines if NAME.match(line) and "=" in line]


def readme_settings_rows() -> list[str]:
    """The first cell of every row in the README's ``## Settings`` table."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    return [
        match.group(1)
        for match in re.finditer(rf"^\| `({PREFIX}[A-Z0-9_]+)` \|", section, flags=re.MULTILINE)
    ]


def test_names_are_derived_from_the_prefix() -> None:
    assert PREFIX == "BENCHMAX_"
    assert "BENCHMAX_DATABASE_URL" in env_names(Settings)


def test_env_example_gives_every_setting_exactly_one_value() -> None:
    assigned = example_assignments(example_lines())
    assert sorted(env_names(Settings) - set(assigned)) == [], "missing from .env.example"
    assert sorted(set(assigned) - env_names(Settings)) == [], "in .env.example, not in Settings"
    assert [name for name, n in Counter(assigned).items() if n > 1] == []


def test_env_example_mentions_no_variable_settings_lacks() -> None:
    mentioned = {name for line in example_lines() for name in NAME.findall(line)}
    assert sorted(mentioned - env_names(Settings)) == []


def test_env_example_keeps_the_user_content_block_to_core_settings() -> None:
    """The file says the user-content service reads only its first block; keep that true."""
    lines = example_lines()
    split = next(i for i, line in enumerate(lines) if line.startswith(APP_ONLY_HEADING))
    assert set(example_assignments(lines[:split])) == env_names(CoreSettings)


def test_readme_table_lists_every_setting_once() -> None:
    rows = readme_settings_rows()
    assert sorted(env_names(Settings) - set(rows)) == [], "missing from the README's table"
    assert sorted(set(rows) - env_names(Settings)) == [], "in the README's table, not in Settings"
    assert [name for name, n in Counter(rows).items() if n > 1] == []
