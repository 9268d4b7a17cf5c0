"""What the product's modules import, read from their source with ``ast`` (nothing is run).

Every import statement counts, at module level or inside a function: an import deferred into a
function is still a dependency, and deferring one is the usual way a cycle gets hidden rather
than removed. Left out: imports under ``if TYPE_CHECKING:`` (they never run), and a package's
``__init__`` importing one of its own modules inside a function (a port's factory choosing an
implementation: Python always loads the package before its modules, so the module's import of
its package can never find it half-loaded).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("benchmax", "tasks", "usercontent_service")


@dataclass(frozen=True)
class Import:
    """One ``import target`` or ``from target import names`` in ``module``."""

    module: str
    target: str
    names: tuple[str, ...]
    line: int
    deferred: bool = False

    def where(self) -> str:
        return f"{self.module}:{self.line}"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def product_files(*packages: str) -> list[Path]:
    return sorted(p for package in packages or PACKAGES for p in (ROOT / package).rglob("*.py"))


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _nodes(tree: ast.AST, deferred: bool = False) -> Iterator[tuple[ast.AST, bool]]:
    """Every node that runs, with whether it sits inside a function."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                yield child, deferred
                yield from _nodes(child, deferred)
            continue
        yield node, deferred
        inner = deferred or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        yield from _nodes(node, inner)


def imports_of(path: Path) -> list[Import]:
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node, deferred in _nodes(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [Import(module, a.name, (), node.lineno, deferred) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            target = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, *([target] if target else [])])
            names = tuple(alias.name for alias in node.names)
            found.append(Import(module, target, names, node.lineno, deferred))
    return found


def all_imports(*packages: str) -> list[Import]:
    return [found for path in product_files(*packages) for found in imports_of(path)]


def import_graph() -> dict[str, set[str]]:
    """Module -> the product modules it imports; ``from pkg import mod`` points at ``pkg.mod``."""
    modules = {module_name(path) for path in product_files()}
    graph: dict[str, set[str]] = {module: set() for module in modules}
    for found in all_imports():
        if found.deferred and found.target.startswith(found.module + "."):
            continue  # a package's factory loading its own implementation (see above)
        targets = {f"{found.target}.{name}" for name in found.names} & modules
        if not targets or set(found.names) - {t.rpartition(".")[2] for t in targets}:
            targets.add(found.target)
        graph[found.module] |= (targets & modules) - {found.module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups
