"""Absolute links to evidence on the user-content origin, and whether that origin is safe.

Evidence is only ever linked on its own origin: a host the browser treats as a different
site for cookies, so nothing served there can read or ride on an app session.
"""

from __future__ import annotations

from urllib.parse import quote

from benchmax.settings import usercontent_origin_problem

__all__ = ["evidence_url", "usercontent_origin_problem"]

PLACEHOLDER_NAME = "file"


def evidence_url(origin: str, evidence_id: str, safe_name: str) -> str:
    """``{origin}/e/{id}/{name}``; the name is cosmetic (the id decides) but kept readable."""
    name = quote(safe_name or PLACEHOLDER_NAME, safe="")
    return f"{origin.rstrip('/')}/e/{quote(evidence_id, safe='')}/{name}"
