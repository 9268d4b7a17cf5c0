"""The periodic pass that adds newly published prompts to the similar-prompts index."""

from __future__ import annotations

from benchmax.services.jobs import JobContext
from benchmax.services.prompts.similar import index_prompts


def index_new_prompts(ctx: JobContext) -> int:
    """Sign every prompt key that has a public Test and no signature yet; idempotent."""
    with ctx.session() as session:
        return index_prompts(session)
