"""No function in benchmax or the contributor client over 60 lines unless its docstring says
why it is long.

A long function is usually several steps that want names of their own. When one really reads
better whole, its docstring says so with the words "long because".
"""

from __future__ import annotations

import ast

from tests.unit.import_graph import ROOT, product_files

MAX_LINES = 60


def _too_long() -> list[str]:
    found = []
    for path in product_files("benchmax", "clients/python/benchmax_client"):
        name = str(path.relative_to(ROOT))
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            reason = "long because" in (ast.get_docstring(node) or "").lower()
            if lines > MAX_LINES and not reason:
                found.append(f"{name}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_functions_stay_short_or_say_why() -> None:
    assert _too_long() == []
