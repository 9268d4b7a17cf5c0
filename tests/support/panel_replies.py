"""Bench gateway panel replies as the gateway sends them, for import tests at every level."""

from __future__ import annotations

import json
from typing import Any

ANSWERS = {
    "alpha": "# Todo\n\nA single HTML file with a list and an input.",
    "beta": "Here is the page:\n\n```html\n<ul id=todo></ul>\n```",
    "gamma": "Done: one file, no dependencies.",
}


def seat(
    n: int, alias: str, status: str = "ok", answer: str = "", error: str | None = None
) -> dict[str, Any]:
    return {
        "call": f"call_{n:04d}",
        "seat": f"seat-{n}",
        "alias": alias,
        "status": status,
        "seconds": 1.5 * n,
        "answer": answer,
        "error": error,
    }


def five_seats() -> list[dict[str, Any]]:
    """Three ok seats, one error and one empty: the acceptance case."""
    return [
        seat(1, "anthropic/claude-sonnet-4.5", answer=ANSWERS["alpha"]),
        seat(2, "openai/gpt-5", answer=ANSWERS["beta"]),
        seat(3, "google/gemini-2.5-pro", status="error", error="upstream timeout after 60 s"),
        seat(4, "mistral/mistral-large", status="empty"),
        seat(5, "x-ai/grok-4", answer=ANSWERS["gamma"]),
    ]


def reply(seats: list[Any], collection: str = "web-ui") -> dict[str, Any]:
    """An OpenAI-compatible chat completion from a bench/<collection> call."""
    return {
        "id": "chatcmpl-bench-1",
        "object": "chat.completion",
        "model": f"bench/{collection}",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "see bench"}}],
        "bench": {"panel": "frontier", "collection": collection, "shape": "all", "seats": seats},
    }


def reply_text(seats: list[Any] | None = None, **kw: Any) -> str:
    return json.dumps(reply(five_seats() if seats is None else seats, **kw), indent=2)
