"""The one exception moderation services raise; the API and pages show its message as is."""

from __future__ import annotations


class ModerationError(Exception):
    """A refused request: ``code`` is stable, ``message`` is for people, ``status`` for HTTP.

    ``field`` names the input at fault when there is one, so a form can show the error inline.
    """

    def __init__(self, code: str, message: str, status: int = 400, field: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.field = field
