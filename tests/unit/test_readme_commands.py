"""The README's command table names every ``benchmax`` subcommand the parser has, so a new
command cannot ship unlisted (and a removed one cannot stay listed)."""

from __future__ import annotations

import argparse
import re

from benchmax.cli.main import build_parser
from tests.conftest import ROOT


def _leaves(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _leaves(sub, (*prefix, name)) or [(*prefix, name)]
    return found


def _table() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    start = readme.index("### Every `benchmax` command")
    end = readme.index("\n### ", start + 1)
    return [line for line in readme[start:end].splitlines() if line.startswith("| `benchmax")]


def _words(line: str) -> set[str]:
    return set(re.findall(r"[a-z][a-z-]*", line.split(" | ")[0]))


def test_every_subcommand_has_a_row_naming_it() -> None:
    rows = _table()
    missing = [
        " ".join(leaf)
        for leaf in _leaves(build_parser())
        if not any(f"benchmax {leaf[0]}" in row and set(leaf) <= _words(row) for row in rows)
    ]
    assert missing == []


def test_every_row_names_a_real_command() -> None:
    groups = {leaf[0] for leaf in _leaves(build_parser())}
    named = {re.match(r"\| `benchmax ([a-z-]+)", row).group(1) for row in _table()}  # type: ignore[union-attr]
    assert named == groups
