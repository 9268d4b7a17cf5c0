"""What a scan concludes, and the exception the individual checks use to stop one."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Verdict = Literal["approved", "blocked"]
Kind = Literal["image", "video", "text", "source"]


class BlockedError(Exception):
    """Raised by a check that refuses a file; ``scan_file`` turns it into a blocked result.

    ``code`` is stable and machine-readable (it is stored and matched on); ``reason`` is
    shown to the contributor and must never quote file content or a secret.
    """

    def __init__(self, code: str, reason: str, findings: list[dict[str, Any]] | None = None):
        super().__init__(code)
        self.code = code
        self.reason = reason
        self.findings = findings or []


@dataclass(slots=True)
class ScanResult:
    verdict: Verdict
    kind: Kind | None = None
    content_type: str = "application/octet-stream"
    safe_name: str | None = None
    block_code: str = ""
    block_reason: str = ""
    # A re-encoded copy to store instead of the original (images only); None means the
    # original bytes are what gets stored.
    sanitized_path: Path | None = None
    width: int | None = None
    height: int | None = None
    size_bytes: int = 0
    sha256: str = ""
    findings: list[dict[str, Any]] = field(default_factory=list)
    # Facts for later stages, e.g. whether a ZIP has a root index.html for evaluation.
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def approved(self) -> bool:
        return self.verdict == "approved"
