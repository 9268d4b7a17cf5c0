"""What can go wrong talking to BenchMax, as exceptions a script can tell apart.

A refusal keeps the server's own words (``message``) and its machine code (``code``): the
server already says what to fix, in the field's name the caller used, so the client never
rewrites it. None of these carries what was sent — no prompt, output, file bytes or token.
"""

from __future__ import annotations


class BenchmaxError(Exception):
    """Anything this client reports instead of a result."""


class ConfigError(BenchmaxError):
    """The local setup is wrong: no token, an unsafe config file, an unreadable input file."""


class MissingToken(ConfigError):
    """Submitting (or reading a status) needs a token and none was configured."""


class ApiError(BenchmaxError):
    """The server answered with its JSON error: ``{"error": {code, message, field}}``."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        field: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.retry_after = retry_after

    def to_json(self) -> dict[str, object]:
        return {
            "status": self.status,
            "code": self.code,
            "message": self.message,
            "field": self.field,
            "retry_after": self.retry_after,
        }


class AuthError(ApiError):
    """401 or 403: the token is missing, wrong, revoked, or its account may not do this."""


class RateLimited(ApiError):
    """429 whose ``Retry-After`` was longer than the caller was willing to wait."""


class Unreachable(BenchmaxError):
    """No answer: the server is down, the network failed, or it kept answering 5xx."""
