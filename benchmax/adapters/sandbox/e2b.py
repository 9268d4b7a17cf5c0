"""The E2B sandbox: the same evaluator in a microVM built from ``e2b.Dockerfile``.

Created with internet access off (``allow_internet_access=False``: that is what blocks
egress; the ``network`` option only concerns inbound URLs), killed on its timeout by E2B and
always killed by us in ``finally``, labelled with ids only. The evaluator's own egress
self-test runs inside too, so a sandbox that could reach out fails closed here as well.

Limits: the microVM's memory and CPUs are the template's (``benchmax preview
build-template`` builds it with ``BENCHMAX_PREVIEW_MEMORY_MIB``), its disk is the VM's own
and gone with it; inside, the evaluator runs under ``prlimit`` with the same processor-time
and file-size limits as the local sandbox. An evaluator that ends killed by one of them (the
VM's out-of-memory killer: SIGKILL; SIGXCPU; SIGXFSZ) is the site's result naming the limit,
exactly as locally, and not retried.
"""

from __future__ import annotations

import logging
import signal
from pathlib import Path
from typing import Any

from benchmax.adapters.sandbox import (
    OUTPUT_FILES,
    EvaluationOutput,
    SandboxError,
    limit_result,
    parse_outputs,
)
from benchmax.adapters.sandbox.limits import (
    CPU,
    CPU_RLIMIT_MARGIN,
    DEFAULT_LIMITS,
    FILE_SIZE,
    MEMORY,
    Limits,
)
from benchmax.settings import Settings

logger = logging.getLogger(__name__)

INSIDE_EVALUATOR = "/opt/evaluator/evaluate.py"
INSIDE_PYTHON = "/opt/venv/bin/python"
INSIDE_ZIP = "/tmp/site.zip"  # noqa: S108 (inside the microVM)
INSIDE_OUT = "/tmp/out"  # noqa: S108
# Seconds the sandbox lives beyond the evaluator's bound before E2B kills it itself.
GRACE_SECONDS = 30
# A shell reports a process killed by signal N as 128 + N.
EXIT_LIMITS = {
    128 + signal.SIGKILL: MEMORY,
    128 + signal.SIGXCPU: CPU,
    128 + signal.SIGXFSZ: FILE_SIZE,
}


class E2BSandbox:
    name = "e2b"

    def __init__(
        self,
        *,
        api_key: str,
        template_id: str,
        api_url: str,
        sandbox_url: str,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        self.api_key = api_key
        self.template_id = template_id
        self.api_url = api_url
        self.sandbox_url = sandbox_url
        self.limits = limits

    @classmethod
    def from_settings(cls, settings: Settings) -> E2BSandbox:
        key = settings.e2b_api_key.get_secret_value() if settings.e2b_api_key else ""
        return cls(
            api_key=key,
            template_id=settings.e2b_template_id,
            api_url=settings.e2b_api_url,
            sandbox_url=settings.e2b_sandbox_url,
            limits=Limits.from_settings(settings),
        )

    def _connection(self) -> dict[str, Any]:
        options: dict[str, Any] = {"api_key": self.api_key}
        if self.api_url:
            options["api_url"] = self.api_url
        if self.sandbox_url:
            options["sandbox_url"] = self.sandbox_url
        return options

    def evaluate(
        self, zip_path: Path, timeout_seconds: float, *, labels: dict[str, str] | None = None
    ) -> EvaluationOutput:
        from e2b import Sandbox

        if not self.api_key or not self.template_id:
            raise SandboxError("e2b_not_configured")
        try:
            sandbox = Sandbox.create(
                template=self.template_id,
                timeout=int(timeout_seconds + GRACE_SECONDS),
                allow_internet_access=False,
                metadata=labels or {},
                lifecycle={"on_timeout": "kill"},
                **self._connection(),
            )
        except Exception as exc:
            raise SandboxError(f"e2b_create:{type(exc).__name__}") from exc
        try:
            return self._run(sandbox, zip_path, timeout_seconds)
        finally:
            try:
                sandbox.kill()
            except Exception as exc:  # E2B's own timeout kills it anyway
                logger.warning("e2b sandbox kill failed with %s", type(exc).__name__)

    def _run(self, sandbox: Any, zip_path: Path, timeout_seconds: float) -> EvaluationOutput:
        from e2b.sandbox.commands.command_handle import CommandExitException

        try:
            sandbox.files.write(INSIDE_ZIP, zip_path.read_bytes())
            try:
                sandbox.commands.run(self._command(timeout_seconds), timeout=timeout_seconds + 10)
            except CommandExitException as exc:
                if exc.exit_code in EXIT_LIMITS:
                    return limit_result(EXIT_LIMITS[exc.exit_code])
                raise
            files: dict[str, bytes] = {}
            for name, limit in OUTPUT_FILES.items():
                data = _read(sandbox, f"{INSIDE_OUT}/{name}")
                if data is None:
                    continue
                if len(data) > limit:
                    raise SandboxError(f"output_too_large:{name}")
                files[name] = data
        except SandboxError:
            raise
        except Exception as exc:
            raise SandboxError(f"e2b_run:{type(exc).__name__}") from exc
        return parse_outputs(files)

    def _command(self, timeout_seconds: float) -> str:
        cpu = self.limits.cpu_seconds
        return (
            f"prlimit --cpu={cpu}:{cpu + CPU_RLIMIT_MARGIN} --fsize={self.limits.file_bytes} "
            f"--core=0 -- {INSIDE_PYTHON} {INSIDE_EVALUATOR} --zip {INSIDE_ZIP} "
            f"--out {INSIDE_OUT} --timeout {timeout_seconds:.0f}"
        )


def _read(sandbox: Any, path: str) -> bytes | None:
    try:
        data = sandbox.files.read(path, format="bytes")
    except Exception:
        return None
    return bytes(data)
