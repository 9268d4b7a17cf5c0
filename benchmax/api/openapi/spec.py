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
Security = Literal["none", "token", "optional"]
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
    name: str
    where: ParamIn = "query"
    description: str = ""
    required: bool = False
    max_length: int | None = None
    pattern: str | None = None

    def schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "string"}
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
    security: Security = "none"
    description: str = ""
    extra_answers: tuple[Answer, ...] = field(default_factory=tuple)


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
