"""Every file the architecture doc and the README point at exists, and the layout names every
folder.

The docs send a reader to code by path, and a module moved without its doc leaves a pointer
that reads exactly like a good one. So the paths are checked against this checkout.

What counts as a path (anything else in backticks is prose, a URL or a command):

* a backticked span outside fenced blocks, made only of letters, digits, ``_``, ``.``, ``-``
  and ``/``, that holds a ``/`` or ends in ``.py``, and does not start with ``/``. So a URL of
  the site (``/api/v1/...``), a placeholder (``<port>``, ``{id}``), a glob (``*``), a command
  (spaces) or an attribute (``ctx.queue``) is not one;
* it starts where its first folder is: at the repository root when the root holds that name
  (``benchmax/…``, ``tests/…``, ``tasks/…``, ``bench/…``, ``docs/…``), else in ``benchmax/``
  (``services/feed.py``, ``context.py``);
* ``path/module.Name`` means ``Name`` defined at the top of ``path/module.py``;
* runtime data (a path ``.gitignore`` ignores, such as ``var/``) and object-storage keys
  (``quarantine/``, ``evidence/``, … from the storage port's prefixes) are not in the
  checkout and are skipped.

The layout is the fenced block under ``## Layout``: a tree with one entry per line, two
spaces deeper per level, each under the last folder above it at a shallower level; a line
indented past ``ENTRY_DEPTH`` levels continues the description above it. Its entries are
paths from the repository root. The architecture doc's layout must also name every folder that
holds a file of the checkout (hidden and ignored ones aside), so a new package cannot be left
out of the one place that says what each folder is for.
"""

from __future__ import annotations

import ast
import os
import re
from fnmatch import fnmatch
from pathlib import Path

import pytest

from benchmax.adapters import storage

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "benchmax"
ARCHITECTURE = "docs/architecture.md"
DOCS = (ARCHITECTURE, "README.md")
LAYOUT_HEADING = "## Layout"
ENTRY_DEPTH = 3
SPAN = re.compile(r"`([^`\n]+)`")
PATH_CHARACTERS = re.compile(r"[\w.\-/]+")
FENCE = "```"
STORAGE_PREFIXES = tuple(
    value
    for name, value in vars(storage).items()
    if name.endswith("_PREFIX") and isinstance(value, str)
)


def _ignore_patterns() -> list[str]:
    lines = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    return [line.strip().rstrip("/") for line in lines if line.strip() and line[0] != "#"]


IGNORED = _ignore_patterns()


def ignored(relative: str) -> bool:
    """Whether ``.gitignore`` keeps ``relative`` (a root-relative path) out of the checkout."""
    parts = relative.strip("/").split("/")
    prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    return any(
        any(fnmatch(prefix, pattern) for prefix in prefixes)
        if "/" in pattern
        else any(fnmatch(part, pattern) for part in parts)
        for pattern in IGNORED
    )


def read(doc: str) -> str:
    return (ROOT / doc).read_text(encoding="utf-8")


def prose_spans(text: str) -> list[str]:
    """Backticked spans outside fenced blocks."""
    spans: list[str] = []
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith(FENCE):
            fenced = not fenced
        elif not fenced:
            spans.extend(SPAN.findall(line))
    return spans


def is_path(span: str) -> bool:
    return (
        PATH_CHARACTERS.fullmatch(span) is not None
        and not span.startswith("/")
        and ("/" in span or span.endswith(".py"))
    )


def location(span: str) -> Path:
    first = span.split("/", 1)[0]
    return (ROOT if (ROOT / first).exists() else PACKAGE) / span


def in_checkout(span: str) -> bool:
    """False for runtime data and storage keys, which no checkout holds."""
    relative = location(span).relative_to(ROOT).as_posix()
    return not ignored(relative) and not span.startswith(STORAGE_PREFIXES)


def top_level_names(module: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(module.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(
                t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)
            )
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return names


def exists(path: Path, *, folder: bool = False) -> bool:
    """``path`` is a file or folder here, or ``module.Name`` with ``Name`` in ``module.py``."""
    if folder:
        return path.is_dir()
    if path.exists():
        return True
    stem, dot, attribute = path.name.partition(".")
    module = path.with_name(f"{stem}.py")
    return bool(dot) and module.is_file() and attribute.split(".")[0] in top_level_names(module)


def missing_spans(text: str) -> list[str]:
    spans = [span for span in prose_spans(text) if is_path(span) and in_checkout(span)]
    return [
        span
        for span in dict.fromkeys(spans)
        if not exists(location(span.rstrip("/")), folder=span.endswith("/"))
    ]


def layout_block(text: str) -> list[str]:
    after = text.split(f"\n{LAYOUT_HEADING}\n", 1)[1]
    return after.split(FENCE, 2)[1].splitlines()[1:]


def layout_entries(block: list[str]) -> list[str]:
    """Each entry's path from the root: its name under the folders that enclose it."""
    entries: list[str] = []
    parents: list[tuple[int, str]] = []
    for line in block:
        indent = len(line) - len(line.lstrip(" "))
        if not line.strip() or indent % 2 or indent > 2 * ENTRY_DEPTH:
            continue
        while parents and parents[-1][0] >= indent:
            parents.pop()
        name = line.split()[0]
        entries.append("".join(folder for _, folder in parents) + name)
        if name.endswith("/"):
            parents.append((indent, name))
    return entries


def kept(relative: Path) -> bool:
    """Whether a root-relative file or folder belongs to the checkout: not hidden, not ignored."""
    return relative.name[0] != "." and not ignored(relative.as_posix())


def checkout_folders() -> set[str]:
    """Every folder that holds a file of the checkout (hidden and ignored ones left out)."""
    folders: set[str] = set()
    for here, subfolders, files in os.walk(ROOT):
        relative = Path(here).relative_to(ROOT)
        subfolders[:] = [name for name in subfolders if kept(relative / name)]
        if relative.parts and any(kept(relative / name) for name in files):
            folders.update(folder.as_posix() for folder in [relative, *relative.parents][:-1])
    return folders


@pytest.mark.parametrize("doc", DOCS)
def test_every_backticked_path_exists(doc: str) -> None:
    assert missing_spans(read(doc)) == [], f"{doc} names paths that do not exist"


@pytest.mark.parametrize("doc", DOCS)
def test_every_layout_entry_exists(doc: str) -> None:
    entries = layout_entries(layout_block(read(doc)))
    assert entries, f"no layout entries found in {doc}"
    gone = [e for e in entries if not exists(ROOT / e.rstrip("/"), folder=e.endswith("/"))]
    assert gone == [], f"{doc}'s layout names paths that do not exist"


def test_the_layout_names_every_folder() -> None:
    named = {entry.rstrip("/") for entry in layout_entries(layout_block(read(ARCHITECTURE)))}
    assert sorted(checkout_folders() - named) == [], f"folders missing from {ARCHITECTURE}"


@pytest.mark.parametrize(
    "span",
    [
        "/api/v1/tests/{id}/files",
        "/evidence/...",
        "ctx.queue",
        "benchmax.dev",
        "BENCHMAX_JUDGE_*",
        ".web-stack-<port>",
        "taskiq worker tasks.broker:broker tasks.run",
        "http://127.0.0.1:3001",
        "local|<handle>",
    ],
)
def test_urls_attributes_globs_and_commands_are_not_paths(span: str) -> None:
    assert not is_path(span)


@pytest.mark.parametrize(
    "span", ["var/objects", "test-artifacts/screens/", "quarantine/", "private/x"]
)
def test_runtime_data_and_storage_keys_are_paths_outside_the_checkout(span: str) -> None:
    assert is_path(span)
    assert not in_checkout(span)


def test_product_paths_are_in_the_checkout() -> None:
    assert in_checkout("services/jobs/")


def test_a_path_that_does_not_exist_is_reported() -> None:
    text = (
        "`services/feed.py`, `tests/unit/test_docs_paths.py`, `models/user.User`, `bench/`,"
        " `services/no_such_module.py`, `models/user.NoSuchName`, `tests/no_such_folder/`,"
        " `models/user.py/`, `no_such_module.py`\n```\n`services/fenced_is_not_prose.py`\n```"
    )
    assert missing_spans(text) == [
        "services/no_such_module.py",
        "models/user.NoSuchName",
        "tests/no_such_folder/",
        "models/user.py/",
        "no_such_module.py",
    ]


def test_layout_entries_nest_under_their_folders() -> None:
    block = [
        "rxconfig.py         config",
        "benchmax/           the app",
        "  services/         domain logic",
        "    search/         full text",
        "                    a description that runs on",
        "  context.py        the context",
        "tests/              suites",
    ]
    assert layout_entries(block) == [
        "rxconfig.py",
        "benchmax/",
        "benchmax/services/",
        "benchmax/services/search/",
        "benchmax/context.py",
        "tests/",
    ]
