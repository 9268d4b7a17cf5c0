"""The one family of refusals every service raises, and the API and the pages show as is.

A ``ServiceError`` is a request the service will not honour: ``code`` is stable and
machine-readable, ``message`` is plain words safe to show (it never quotes submitted content
or a secret), and ``field`` names the input at fault (or ``None``), so a form can show the
message beside that input. The subclass says what kind of refusal it is, and so the HTTP
status the API answers with (``benchmax/api/errors.py`` is the one place that maps it).

Adapters keep their own exceptions (a missing object, a blocked scan); a service that turns
one into something a person should read raises one of these. Every exception class a service
defines is one of these, bar a few internal signals caught before they leave their service
(``tests/unit/test_error_family.py`` lists them, each with why); anything else reaching the
API is a bug, answered as a bare 500.
"""

from __future__ import annotations

from typing import Any, ClassVar


class ServiceError(Exception):
    """A refusal a person can act on; ``status`` is the HTTP status of its kind."""

    status: ClassVar[int] = 400

    def __init_subclass__(cls, *, status: int | None = None, **kwargs: Any) -> None:
        # The status sits in the class line, so each kind below reads as name, status, why.
        super().__init_subclass__(**kwargs)
        if status is not None:
            cls.status = status

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, field={self.field!r})"


class Invalid(ServiceError, status=400):
    """The input itself is wrong: a missing, malformed or out-of-range value."""


class Unsupported(Invalid, status=415):
    """The request's body is not in a form the route reads (``Content-Type``)."""


class Unauthenticated(ServiceError, status=401):
    """No usable credentials: sign in, or send a valid token."""


class Forbidden(ServiceError, status=403):
    """The caller is known and is not allowed to do this."""


class NotFound(ServiceError, status=404):
    """Nothing the caller may see has this id (someone else's reads the same as none)."""


class TooSlow(ServiceError, status=408):
    """A request body stalled or trickled in under the minimum rate, and was cut off."""


class Conflict(ServiceError, status=409):
    """The thing exists but its state does not allow this, or a unique value is taken."""


class TooLarge(ServiceError, status=413):
    """A body, a file or a Test is over its size cap."""


class RateLimited(ServiceError, status=429):
    """Too many requests in a window; ``retry_after`` is the seconds until one is allowed
    again, which every 429 sends back (so it is not optional here)."""

    def __init__(
        self, code: str, message: str, field: str | None = None, *, retry_after: int
    ) -> None:
        super().__init__(code, message, field)
        self.retry_after = retry_after
