"""The user-content service may reach models, db, storage, CoreSettings and the import-free
Windows name rule, and nothing else."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.unit.import_graph import ROOT, all_imports

# benchmax.windows_names imports nothing at all; it is the one rule for safe download names.
# benchmax.file_types imports nothing of benchmax; it is the one table of accepted file types.
ALLOWED = (
    "benchmax.models",
    "benchmax.db",
    "benchmax.adapters.storage",
    "benchmax.settings",
    "benchmax.windows_names",
    "benchmax.file_types",
)


def _benchmax_imports() -> list[tuple[str, str, tuple[str, ...]]]:
    return [
        (found.where(), found.target, found.names)
        for found in all_imports("usercontent_service")
        if found.target.split(".")[0] == "benchmax"
    ]


def test_only_allowed_benchmax_modules_are_imported() -> None:
    imports = _benchmax_imports()

    assert imports, "the scan found nothing; it is not looking at the package"
    for filename, module, _ in imports:
        allowed = any(module == root or module.startswith(root + ".") for root in ALLOWED)
        assert allowed, f"{filename} imports {module}"
    settings_names = {
        name for _, module, names in imports if module == "benchmax.settings" for name in names
    }
    assert settings_names == {"CoreSettings"}


def test_importing_the_app_loads_no_auth_judge_or_ui_code(tmp_path: Path) -> None:
    # A fresh interpreter with no BenchMax variables at all: the defaults must be enough.
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT)}
    probe = (
        "import sys, usercontent_service.app\n"
        "bad = ('benchmax.adapters.auth', 'benchmax.context', 'benchmax.api', "
        "'benchmax.services', 'clerk_backend_api', 'reflex', 'jwt', 'taskiq', 'e2b')\n"
        "print(sorted(m for m in sys.modules if m.startswith(bad)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )

    assert result.stdout.strip() == "[]"
