"""Where the command's results go: one JSON object for scripts, or lines for people.

Results go to stdout; notes and refusals for people go to stderr, so a pipe gets only the
result. With ``--json`` a refusal is a JSON object on stdout too, and stderr stays empty.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TextIO

from benchmax_client.errors import ApiError, BenchmaxError, RateLimited


class Output:
    """Where results go: JSON for scripts or lines for people, and notes on stderr."""

    def __init__(self, as_json: bool, stdout: TextIO, stderr: TextIO) -> None:
        self.as_json = as_json
        self.stdout = stdout
        self.stderr = stderr

    def result(self, body: Any, lines: Callable[[], list[str]]) -> None:
        if self.as_json:
            self.stdout.write(json.dumps(body, ensure_ascii=False, indent=2) + "\n")
        else:
            self.stdout.write("".join(line + "\n" for line in lines()))

    def note(self, line: str) -> None:
        if not self.as_json:
            self.stderr.write(line + "\n")
            self.stderr.flush()


def report(error: BenchmaxError, out: Output) -> None:
    if out.as_json:
        body = error.to_json() if isinstance(error, ApiError) else {"message": str(error)}
        out.stdout.write(json.dumps({"error": body}, ensure_ascii=False) + "\n")
        return
    if isinstance(error, RateLimited):
        out.stderr.write(f"benchmax-client: {error.message}\n")
    elif isinstance(error, ApiError):
        where = f" (field: {error.field})" if error.field else ""
        out.stderr.write(f"benchmax-client: refused, {error.status} {error.code}{where}:\n")
        out.stderr.write(f"  {error.message}\n")
    else:
        out.stderr.write(f"benchmax-client: {error}\n")
