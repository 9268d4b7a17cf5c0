"""Where the browser-web-v1 evaluator runs: one port, two adapters chosen by settings.

``local`` runs it in bubblewrap on the worker (the embedded default and the tests); ``e2b``
in an E2B sandbox with internet access off (production). Both take a source ZIP on disk and
hand back the evaluator's result and files; neither lets the site reach the network, and both
fail closed (``SandboxError``) when they cannot say so.

A run that crossed one of its resource limits (memory, processor time, tasks, disk, file
size) is not a sandbox fault: both adapters hand back ``limit_result``, a failed result that
names the limit, so it is recorded for the site and never retried automatically. Pictures
and recordings are BenchMax's own artifacts: the evaluator keeps them under their caps, and
one that still arrives too large is left out of the result, not a failure.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from benchmax.adapters.sandbox.limits import LIMIT_CODES, Limits
from benchmax.settings import Settings

EVALUATOR_DIR = Path(__file__).resolve().parents[3] / "sandbox" / "browser-web-v1"
TEMPLATE = "browser-web-v1"
# What makes up the evaluator: the script, its pinned dependencies and the E2B template.
# node_modules is not hashed: the lockfile pins (and integrity-checks) what it holds.
TEMPLATE_FILES = ("evaluate.py", "package.json", "package-lock.json", "e2b.Dockerfile")
RESULT_FILE = "result.json"
LIMIT_SUMMARY = "The preview was stopped: the page used more than a preview allows."
# Files an evaluation may hand back, with the most bytes each may have.
OUTPUT_FILES = {
    RESULT_FILE: 1 * 1024 * 1024,
    "screenshot.png": 16 * 1024 * 1024,
    "video.webm": 24 * 1024 * 1024,
    "video.webp": 24 * 1024 * 1024,
}


class SandboxError(Exception):
    """The sandbox (not the site) failed; ``code`` is content-free and worth a retry."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code[:64]


@dataclass(frozen=True)
class EvaluationOutput:
    result: dict[str, Any]
    files: dict[str, bytes] = field(default_factory=dict)


class SandboxPort(Protocol):
    name: str

    def evaluate(
        self, zip_path: Path, timeout_seconds: float, *, labels: dict[str, str] | None = None
    ) -> EvaluationOutput:
        """``labels``: ids only (evaluation, Test), for the sandbox provider's metadata."""
        ...


def template_hash(directory: Path = EVALUATOR_DIR) -> str:
    """SHA-256 over the evaluator's input files (names and contents, in a fixed order)."""
    digest = hashlib.sha256()
    for name in TEMPLATE_FILES:
        data = (directory / name).read_bytes()
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def read_outputs(directory: Path) -> EvaluationOutput:
    """The evaluator's files from ``directory``, refusing a missing result or oversized file."""
    files: dict[str, bytes] = {}
    for name, limit in OUTPUT_FILES.items():
        path = directory / name
        if not path.is_file() or path.is_symlink():
            continue
        if path.stat().st_size > limit:
            if name == RESULT_FILE:
                raise SandboxError("output_too_large:result")
            continue  # a picture or recording too large to keep: the result stands without it
        files[name] = path.read_bytes()
    return parse_outputs(files)


def limit_result(code: str) -> EvaluationOutput:
    """The site's result of a run stopped at a resource limit (``code`` in ``LIMIT_CODES``)."""
    assert code in LIMIT_CODES, code
    result = {"template": TEMPLATE, "status": "failed", "reason": code, "summary": LIMIT_SUMMARY}
    return EvaluationOutput(result=result, files={})


def parse_outputs(files: dict[str, bytes]) -> EvaluationOutput:
    raw = files.get(RESULT_FILE)
    if raw is None:
        raise SandboxError("no_result")
    try:
        result = json.loads(raw)
    except ValueError as exc:
        raise SandboxError("bad_result") from exc
    if not isinstance(result, dict) or result.get("template") != TEMPLATE:
        raise SandboxError("bad_result")
    if result.get("reason") == "egress_open":
        raise SandboxError("egress_open")
    return EvaluationOutput(result=result, files=files)


def build_sandbox(settings: Settings) -> SandboxPort | None:
    """The configured sandbox, or None when previews are off."""
    if settings.preview_sandbox == "local":
        from benchmax.adapters.sandbox.local import LocalSandbox

        return LocalSandbox(limits=Limits.from_settings(settings))
    if settings.preview_sandbox == "e2b":
        from benchmax.adapters.sandbox.e2b import E2BSandbox

        sandbox: SandboxPort = E2BSandbox.from_settings(settings)
        return sandbox
    return None
