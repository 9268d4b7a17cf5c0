"""The command's exit codes: part of its interface, so scripts can branch on them."""

from __future__ import annotations

from enum import IntEnum

from benchmax_client.errors import (
    ApiError,
    AuthError,
    BenchmaxError,
    ConfigError,
    MissingToken,
    RateLimited,
    Unreachable,
)


class ExitCode(IntEnum):
    OK = 0  # done: for submit, the Test is public
    ERROR = 1  # an error this list does not name (a bug: please report it)
    USAGE = 2  # bad arguments, an unreadable input file or config file
    REFUSED = 3  # the server refused the request; its message says why
    NEEDS_ATTENTION = 4  # the Test exists but needs attention, failed or was removed
    PENDING = 5  # still processing when --timeout ran out; `status ID --wait` goes on
    RATE_LIMITED = 6  # Retry-After was longer than --max-wait; run again later
    AUTH = 7  # no token, or the server refused it (401/403)
    UNREACHABLE = 8  # no answer: server down, wrong URL, network, or a server error
    INTERRUPTED = 130  # Ctrl-C


def exit_for(error: BenchmaxError) -> ExitCode:
    if isinstance(error, MissingToken | AuthError):
        return ExitCode.AUTH
    if isinstance(error, ConfigError):
        return ExitCode.USAGE
    if isinstance(error, RateLimited):
        return ExitCode.RATE_LIMITED
    if isinstance(error, Unreachable) or (isinstance(error, ApiError) and error.status >= 500):
        return ExitCode.UNREACHABLE
    if isinstance(error, ApiError):
        return ExitCode.REFUSED
    return ExitCode.ERROR
