"""One context: collaborators and settings reach code only through the context a process builds.

A process's entry point reads the settings once and builds its ``AppContext`` (and with it
the ``JobContext``); everything else is handed what it needs. So, read from the source with
``ast`` (nothing is run):

- ``get_settings()`` is called only by the process entry points below;
- no module keeps a collaborator of its own: no ``global`` statement outside the accessor
  Reflex states need, no module-level variable built by or typed as a collaborator, and no
  cached function (``lru_cache``/``cache``) that builds or returns one;
- nothing in ``benchmax`` imports ``tasks`` (the Taskiq task functions call into benchmax,
  never the other way round).

Each check is a function of a module's source, tested first on a deliberate breach.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tests.unit.import_graph import ROOT, Import, all_imports, module_name, product_files

# The process entry points, the only callers of ``get_settings()``.
ENTRY_POINTS = frozenset(
    {
        "rxconfig",  # Reflex's configuration, read before the app module
        "benchmax.benchmax",  # the Reflex app module: builds the web process's context
        "benchmax.cli.main",  # the CLI: one context per command
        "benchmax.stack.setup",  # the local production stack's one-off set-up
        "tasks.broker",  # a Taskiq worker's or scheduler's settings (tasks.run builds from them)
        # Reflex fixes a cookie's attributes when the state class is defined, before any app
        # has built a context, so the session cookie's lifetime is read here.
        "benchmax.state.session",
    }
)
# The one accessor Reflex states need (``use_app_context``).
GLOBAL_ALLOWED = frozenset({"benchmax.context"})
# What a process builds once and hands on; a module must not keep one of its own.
COLLABORATOR_TYPES = frozenset(
    {
        "AppContext",
        "AsyncBroker",
        "DispatcherSlot",
        "Engine",
        "JobContext",
        "JobDispatcher",
        "JobRuntime",
        "JudgePort",
        "ObjectStorage",
        "SandboxPort",
        "SessionVerifier",
        "Settings",
        "TaskiqDispatcher",
        "ThreadPoolExecutor",
    }
)
BUILDERS = frozenset(
    {"AppContext", "Settings", "ThreadPoolExecutor", "TaskiqDispatcher", "DispatcherSlot"}
)
CACHES = frozenset({"lru_cache", "cache", "BuiltOnce"})


def _called_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _builds_a_collaborator(node: ast.AST) -> bool:
    """Whether ``node`` calls something that builds a collaborator."""
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        name = _called_name(call)
        if (
            name in BUILDERS
            or name in {"get_settings", "make_engine", "get_engine", "from_settings"}
            or name.startswith("build_")
        ):
            return True
    return False


def _names_a_collaborator(annotation: ast.AST | None) -> bool:
    if annotation is None:
        return False
    names = {n.id for n in ast.walk(annotation) if isinstance(n, ast.Name)}
    names |= {n.attr for n in ast.walk(annotation) if isinstance(n, ast.Attribute)}
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return _names_a_collaborator(ast.parse(annotation.value, mode="eval").body)
    return bool(names & (COLLABORATOR_TYPES | {"BuiltOnce"}))


def _decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    return ""


def settings_reads(tree: ast.Module) -> list[int]:
    """Lines that call ``get_settings()``."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and _called_name(node) == "get_settings"
    ]


def global_statements(tree: ast.Module) -> list[int]:
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Global)]


def kept_collaborators(tree: ast.Module) -> list[int]:
    """Lines where a module keeps a collaborator: a module-level variable built as or typed
    as one, or a cached function that builds or returns one."""
    found = []
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            annotation = node.annotation if isinstance(node, ast.AnnAssign) else None
            value = node.value
            built = value is not None and _builds_a_collaborator(value)
            if built or _names_a_collaborator(annotation):
                found.append(node.lineno)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            cached = any(_decorator_name(d) in CACHES for d in node.decorator_list)
            if cached and (_names_a_collaborator(node.returns) or _builds_a_collaborator(node)):
                found.append(node.lineno)
    return found


def _product_modules() -> Iterator[tuple[str, ast.Module]]:
    paths = [*product_files(), ROOT / "rxconfig.py"]
    for path in paths:
        yield module_name(path), ast.parse(path.read_text(), str(path))


def _breaches(check: str) -> list[str]:
    checks = {
        "settings": (settings_reads, ENTRY_POINTS),
        "global": (global_statements, GLOBAL_ALLOWED),
        "kept": (kept_collaborators, ENTRY_POINTS | GLOBAL_ALLOWED),
    }
    find, allowed = checks[check]
    return [
        f"{module}:{line}"
        for module, tree in _product_modules()
        if module not in allowed
        for line in find(tree)
    ]


def _parse(source: str) -> ast.Module:
    return ast.parse(source)


def test_the_checks_see_a_breach() -> None:
    reads = "from x import get_settings\nlimit = get_settings().cap\n"
    assert settings_reads(_parse(reads)) == [2]
    assert settings_reads(_parse("import s\ndef f():\n    return s.get_settings()\n")) == [3]
    assert global_statements(_parse("_x = None\ndef f():\n    global _x\n    _x = 1\n")) == [3]
    kept = """
from functools import cache, lru_cache
_dispatcher: JobDispatcher | None = None
_client: BuiltOnce[JudgePort | None] = BuiltOnce(build_judge)
_threads = ThreadPoolExecutor(max_workers=2)
_storage = build_storage(settings)
LIMIT = 3
@lru_cache(maxsize=8)
def get_engine(url: str) -> Engine:
    return make_engine(url)
@cache
def sandbox(settings):
    return build_sandbox(settings)
@cache
def digest() -> str:
    return "pure"
"""
    assert kept_collaborators(_parse(kept)) == [3, 4, 5, 6, 9, 12]


def test_get_settings_is_called_only_by_the_process_entry_points() -> None:
    assert _breaches("settings") == []


def test_no_module_keeps_a_global_beyond_the_states_accessor() -> None:
    assert _breaches("global") == []


def test_no_module_keeps_a_collaborator_of_its_own() -> None:
    assert _breaches("kept") == []


def test_the_allowed_modules_exist() -> None:
    modules = {name for name, _tree in _product_modules()}
    assert modules >= ENTRY_POINTS | GLOBAL_ALLOWED


def imports_of_tasks(imports: list[Import]) -> list[str]:
    """Where an import reaches up into the Taskiq layer."""
    return [
        found.where()
        for found in imports
        if found.target == "tasks" or found.target.startswith("tasks.")
    ]


def test_the_upward_check_sees_an_import_of_tasks() -> None:
    deferred = Import("benchmax.lifespan", "tasks.run", ("build_dispatcher",), 21, deferred=True)
    plain = Import("benchmax.x", "tasks", ("run",), 3)
    assert imports_of_tasks([deferred, plain]) == ["benchmax.lifespan:21", "benchmax.x:3"]
    assert imports_of_tasks([Import("benchmax.x", "tasksmith", (), 1)]) == []


def test_nothing_in_benchmax_imports_tasks() -> None:
    assert imports_of_tasks(all_imports("benchmax")) == []
