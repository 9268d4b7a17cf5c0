"""Every column of every open-data export is described in docs/api.md, and nothing else is.

The files are read by tools that never see this code; a column added to a section without a
line in the docs would be a column nobody can interpret.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmax.services.exports.sections import SECTIONS, ExportSection

DOCS = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def _documented(name: str) -> list[str]:
    """The backticked names in the first cell of each row of the table under "`name`:"."""
    text = DOCS.read_text(encoding="utf-8")
    start = text.index(f"\n`{name}`: ")
    table = re.search(r"\n\|---\|---\|\n((?:\|.*\n)+)", text[start:])
    assert table, f"no table under `{name}`"
    cells = [line.split("|")[1] for line in table.group(1).splitlines()]
    return [name for cell in cells for name in re.findall(r"`([a-z0-9_]+)`", cell)]


@pytest.mark.parametrize("section", SECTIONS, ids=lambda section: section.name)
def test_each_export_column_is_documented_in_order(section: ExportSection) -> None:
    assert _documented(section.name) == list(section.columns)
