"""How every ``benchmax`` command reports a failure: one line on stderr, exit status 1."""

from __future__ import annotations

import sys

from benchmax.services.errors import ServiceError


def fail(problem: BaseException | str) -> int:
    """Print ``error: …`` (a refusal's safe message, or the text given) and return 1."""
    message = problem.message if isinstance(problem, ServiceError) else str(problem)
    print(f"error: {message}", file=sys.stderr)
    return 1
