"""The one exception every submission service raises, shaped for the wizard and the API."""

from __future__ import annotations


class SubmissionError(Exception):
    """A refusal the contributor can act on.

    ``code`` is stable and machine-readable, ``message`` is plain words safe to show (it never
    quotes submitted content or a secret), ``field`` names the draft field at fault (or
    ``"files"``), and ``status`` is the HTTP status the API answers with.
    """

    def __init__(self, code: str, message: str, *, field: str | None = None, status: int = 400):
        super().__init__(code)
        self.code = code
        self.message = message
        self.field = field
        self.status = status


def not_found() -> SubmissionError:
    """Someone else's Test reads exactly like a missing one."""
    return SubmissionError("not_found", "No Test of yours has this id.", status=404)
