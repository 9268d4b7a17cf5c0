"""``RateLimit`` and ``RateLimit-Policy`` headers (the IETF httpapi draft's structured form)
on the routes with a per-account limit, so a client can pace itself before it meets a 429.

A route notes each allowance it checked on the request (``note``); its success answers and,
through ``benchmax.api.errors``, its refusals carry the headers. Every 429 also carries
``Retry-After`` (``RateLimited.retry_after``), whichever limit it comes from.
"""

from __future__ import annotations

from starlette.requests import Request

from benchmax.services.submissions.quota import Allowance

_NOTED = "benchmax.rate_limits"


def note(request: Request, allowance: Allowance) -> None:
    """Report ``allowance`` on this request's answer (a later note of one policy wins)."""
    noted: dict[str, Allowance] = request.scope.setdefault(_NOTED, {})
    noted[allowance.rate.name] = allowance


def headers_for(request: Request) -> dict[str, str]:
    """The headers for what the request noted; none when it noted nothing."""
    noted: dict[str, Allowance] = request.scope.get(_NOTED, {})
    if not noted:
        return {}
    policies = ", ".join(
        f'"{name}";q={a.rate.limit};w={a.rate.window_seconds}' for name, a in noted.items()
    )
    limits = ", ".join(f'"{name}";r={a.remaining};t={a.reset_seconds}' for name, a in noted.items())
    return {"RateLimit-Policy": policies, "RateLimit": limits}
