"""How a route says what it takes and answers, next to its handler: an ``Operation``.

A route's endpoint carries its ``Operation`` (``documented(op)(endpoint)``, or the table in
``benchmax.api.openapi.operations`` for routes built by factories). The document builder
walks the live Starlette routes and turns each one into OpenAPI, so a route without an
``Operation`` cannot be published unnoticed: the builder refuses it and a test says which.

Bodies and answers are Python types — the very dataclasses and pydantic models the handlers
return — turned into JSON Schema by pydantic, so the document cannot drift from the code.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field

ParamIn = Literal["path", "query", "header"]
# public: no credential (``security: []``); token: an API token; signed_in: an API token or a
# session (the Authorization header or the browser's session cookie).
Security = Literal["public", "token", "signed_in"]
F = TypeVar("F", bound=Callable[..., Any])

OPERATION_ATTRIBUTE = "__openapi_operation__"


class ErrorDetail(BaseModel):
    code: str = Field(description="A stable machine-readable reason, such as not_found.")
    message: str = Field(description="What went wrong, in plain words for a person.")
    field: str | None = Field(description="The request field at fault, when there is one.")


class ErrorBody(BaseModel):
    """The one error shape every API route answers: ``{"error": {code, message, field}}``."""

    error: ErrorDetail


@dataclass(frozen=True)
class Param:
    """One parameter, typed and bounded as the server enforces it: a string (length,
    pattern, or one of ``enum``), or an integer between ``minimum`` and ``maximum``."""

    name: str
    where: ParamIn = "query"
    description: str = ""
    required: bool = False
    max_length: int | None = None
    pattern: str | None = None
    enum: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    min_length: int | None = None

    def schema(self) -> dict[str, Any]:
        if self.minimum is not None or self.maximum is not None:
            bounds = {"minimum": self.minimum, "maximum": self.maximum}
            return {"type": "integer", **{k: v for k, v in bounds.items() if v is not None}}
        if self.enum:
            return {"type": "string", "enum": list(self.enum)}
        schema: dict[str, Any] = {"type": "string"}
        if self.min_length is not None:
            schema["minLength"] = self.min_length
        if self.max_length is not None:
            schema["maxLength"] = self.max_length
        if self.pattern is not None:
            schema["pattern"] = self.pattern
        return schema


@dataclass(frozen=True)
class Body:
    """A request body: a type for JSON, or a ready schema for multipart and raw bytes."""

    media_type: str = "application/json"
    model: Any = None
    schema: dict[str, Any] | None = None
    description: str = ""
    required: bool = True


@dataclass(frozen=True)
class Answer:
    """One success answer: its status, what it means and the type of its JSON (or text)."""

    status: int
    description: str
    model: Any = None
    media_type: str = "application/json"
    schema: dict[str, Any] | None = None


@dataclass(frozen=True)
class Operation:
    summary: str
    tag: str
    answer: Answer
    errors: tuple[int, ...] = ()
    params: tuple[Param, ...] = ()
    body: Body | None = None
    security: Security = "public"
    description: str = ""
    extra_answers: tuple[Answer, ...] = field(default_factory=tuple)
    # A public read with validators: ETag (and Last-Modified), 304 to a matching
    # If-None-Match (``benchmax.api.http_cache``).
    cached: bool = False
    # A page of a list: ``Link: <…>; rel="next"`` when there is a next page.
    paged: bool = False
    # Counted against a per-account limit: RateLimit and RateLimit-Policy headers.
    limited: bool = False


# Characters written text loses on the server (``services/moderation/policy.clean_text``):
# control and format characters are dropped, and the ends are trimmed.
_HIDDEN = (
    r"\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff"
)
_EDGE = rf"[^\s{_HIDDEN}]"


def written_text(minimum: int, maximum: int, description: str) -> Any:
    """A field of text a person writes (a reason, a review), as the server counts it: at
    least ``minimum`` characters once trimmed, with no control or invisible format
    characters. Line breaks and tabs are fine."""
    middle = f"[^{_HIDDEN}]{{{max(0, minimum - 2)},{maximum - 2}}}"
    return Field(
        min_length=minimum,
        max_length=maximum,
        pattern=f"^{_EDGE}{middle}{_EDGE}$",
        description=description,
    )


def label_text(description: str) -> Any:
    """A declared label as the server keys it: at least one letter or digit it can match."""
    return Field(
        min_length=1,
        max_length=200,
        pattern=f"^[^{_HIDDEN}]*[A-Za-z0-9][^{_HIDDEN}]*$",
        description=description,
    )


def documented(operation: Operation) -> Callable[[F], F]:
    """Attach ``operation`` to an endpoint: ``Route(path, documented(op)(handler))``."""

    def attach(endpoint: F) -> F:
        setattr(endpoint, OPERATION_ATTRIBUTE, operation)
        return endpoint

    return attach


def operation_of(endpoint: object) -> Operation | None:
    # Route factories bind the application context with functools.partial; the operation
    # is on the function underneath.
    while isinstance(endpoint, functools.partial):
        endpoint = endpoint.func
    found = getattr(endpoint, OPERATION_ATTRIBUTE, None)
    return found if isinstance(found, Operation) else None
