"""The child side of ``scan_process``: one scan per process, JSON in and JSON out.

Run as ``python -m benchmax.services.scan_child``. It reads one request from stdin, caps its
own address space and CPU time, scans, and writes one reply to stdout. Running out of CPU
(the soft limit's SIGXCPU, raised here as ``ScanTooExpensiveError``) or of memory ends in a
blocked verdict, because the file will cost as much on every attempt; the hard CPU limit a
few seconds later kills a child stuck inside one long C call, and the parent reads that
death the same way. Replies are JSON rather than
pickle because the child has just fed untrusted bytes to C decoders: whatever it sends back
must not be able to run code in the worker that reads it. This module imports only the
scanner, so a child starts as fast as Python can.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import resource
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import Any

from benchmax.services.safety import SafetyLimits, ScanResult, too_expensive

DEFAULT_SCANNER = "benchmax.services.safety:scan_file"
_VERDICTS = ("approved", "blocked")
_KINDS = ("image", "video", "text", "source")


def request(
    path: Path,
    name: str,
    limits: SafetyLimits,
    *,
    memory_limit_bytes: int,
    cpu_limit_seconds: int,
    scanner: str,
    cpu_grace_seconds: int = 1,
) -> bytes:
    return json.dumps(
        {
            "path": str(path),
            "name": name,
            "limits": dataclasses.asdict(limits),
            "memory_limit_bytes": memory_limit_bytes,
            "cpu_limit_seconds": cpu_limit_seconds,
            "cpu_grace_seconds": cpu_grace_seconds,
            "scanner": scanner,
        }
    ).encode()


def read_reply(reply: bytes, path: Path) -> ScanResult | str:
    """The child's ``ScanResult``, or the type name of the error it hit.

    Raises ``ValueError`` for anything that is not a well-formed reply, including a
    sanitised copy claimed outside the scan's own scratch directory.
    """
    data = json.loads(reply)
    if not isinstance(data, dict):
        raise ValueError("reply is not an object")
    if "error" in data:
        return str(data["error"])[:64]
    fields = data["result"]
    if fields["verdict"] not in _VERDICTS or fields["kind"] not in (*_KINDS, None):
        raise ValueError("reply has an unknown verdict or kind")
    sanitized = fields["sanitized_path"]
    if sanitized is not None:
        sanitized = Path(sanitized)
        if sanitized.parent != path.parent:
            raise ValueError("reply points outside the scan's directory")
    return ScanResult(
        verdict=fields["verdict"],
        kind=fields["kind"],
        content_type=str(fields["content_type"]),
        safe_name=None if fields["safe_name"] is None else str(fields["safe_name"]),
        block_code=str(fields["block_code"]),
        block_reason=str(fields["block_reason"]),
        sanitized_path=sanitized,
        width=_optional_int(fields["width"]),
        height=_optional_int(fields["height"]),
        size_bytes=int(fields["size_bytes"]),
        sha256=str(fields["sha256"]),
        findings=_list_of_objects(fields["findings"]),
        metadata=_object(fields["metadata"]),
    )


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)


def _object(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError("expected an object")
    return value


def _list_of_objects(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise ValueError("expected a list")
    return [_object(item) for item in value]


def _scan(data: dict[str, Any]) -> ScanResult:
    module, _, attribute = data["scanner"].partition(":")
    scanner = getattr(importlib.import_module(module), attribute)
    limits = SafetyLimits(**data["limits"])
    result: ScanResult = scanner(Path(data["path"]), data["name"], limits)
    return result


class ScanTooExpensiveError(BaseException):
    """The scan used its CPU budget. A BaseException, so no ``except Exception`` in a
    decoder or in the scanner can swallow it."""


def _over_budget(_signum: int, _frame: FrameType | None) -> None:
    raise ScanTooExpensiveError


def main() -> None:
    data = json.loads(sys.stdin.buffer.read())
    memory = int(data["memory_limit_bytes"])
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    # Also ends a child whose parent died first (no deadline would ever kill it then).
    cpu = int(data["cpu_limit_seconds"])
    signal.signal(signal.SIGXCPU, _over_budget)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + int(data["cpu_grace_seconds"])))
    try:
        try:
            result = _scan(data)
        except (ScanTooExpensiveError, MemoryError):
            result = too_expensive(data["name"], SafetyLimits(**data["limits"]))
        fields = dataclasses.asdict(result)
        if result.sanitized_path is not None:
            fields["sanitized_path"] = str(result.sanitized_path)
        reply: dict[str, Any] = {"result": fields}
    except BaseException as exc:
        # The type only: a message may quote the file's content.
        reply = {"error": type(exc).__name__}
    sys.stdout.buffer.write(json.dumps(reply).encode())


if __name__ == "__main__":
    main()
