"""What every page without a preview of its own says about itself before any script runs,
and the grey shapes its first paint shows while its content loads.

A page rendered at build time keeps the tab title the front end gave it; a page with a
parameter in its route is served an empty shell, so its title is set here. Every page gets a
description, so a search result or a shared link reads as the page, not as the whole site.
"""

from __future__ import annotations

import re

from benchmax.services.link_preview import GENERIC, SITE_NAME, Preview

# Pages rendered at build time: their description (the title is the document's).
_DESCRIPTIONS = {
    "/leaderboard": (
        "A showcase of reviewed, eligible community AI Tests across different prompts, "
        "published as signed snapshots that never change."
    ),
    "/models": (
        "The catalog of model names BenchMax groups Tests by, with the public Tests that "
        "declare each one."
    ),
    "/prompts": (
        "Prompts that two or more public Tests gave to different AI setups, side by side."
    ),
    "/submit": (
        "Submit a Test: the prompt you gave an AI setup, the setup you declare and the "
        "evidence that came back."
    ),
    "/me": "Your Tests, drafts, API tokens and the moderation notes on them.",
    "/sign-in": "Sign in to BenchMax to submit Tests and follow their reviews.",
    "/methodology": "How to read a Test, and what BenchMax can and cannot tell you.",
    "/privacy": "What BenchMax stores about you and what it shows.",
    "/terms": "The short version of the rules for contributing to BenchMax.",
    "/security": (
        "How to report a vulnerability, and how BenchMax keeps untrusted evidence away from you."
    ),
    "/moderation": "The moderators' queue: reports, disputes and appeals, each decided with "
    "a written reason.",
    "/operations": "The operators' view of BenchMax: jobs, the AI judge and the open-data exports.",
}
# Pages served as an empty shell (a parameter in the route): (route, title, description).
_SHELL_PAGES = (
    (
        re.compile(r"/judges/[^/]+"),
        "AI judge",
        "An AI judge snapshot's card: its pinned models, prompt template, rubric and every "
        "calibration result.",
    ),
    (
        re.compile(r"/models/[^/]+"),
        "Model",
        "The public Tests that declare this model, across harnesses and reasoning settings.",
    ),
    (
        re.compile(r"/prompts/[^/]+"),
        "Same prompt, different setups",
        "One prompt given to different AI setups, their Tests side by side.",
    ),
)
# Pages whose content waits for the server, drawn as grey shapes of what is to come.
_LISTS = ("/leaderboard", "/models", "/prompts")
_FORMS = ("/submit",)


def page_preview(path: str, document_title: str) -> Preview:
    """The head of a page without a preview of its own: the document's title, or the title a
    parameterised page gets, and the page's description."""
    path = path.rstrip("/") or "/"
    for route, title, description in _SHELL_PAGES:
        if route.fullmatch(path):
            return Preview(title=f"{title} · {SITE_NAME}", description=description)
    return Preview(
        title=document_title or GENERIC.title,
        description=_DESCRIPTIONS.get(path, GENERIC.description),
    )


def is_shell_page(path: str) -> bool:
    """Whether ``path`` is served the empty shell (so its first paint has to draw it all)."""
    path = path.rstrip("/") or "/"
    return any(route.fullmatch(path) for route, _title, _description in _SHELL_PAGES)


def _bars(*classes: str) -> str:
    return "".join(f'<div class="fp-bar {name}"></div>' for name in classes)


def skeleton_view(path: str) -> str:
    """Grey shapes where a waiting page's heading, introduction and content will be; ""
    for a page that shows its content at once."""
    path = path.rstrip("/") or "/"
    if path in _LISTS:
        rows = _bars(*["fp-row"] * 6)
        return f'<div class="fp-main fp-list">{_bars("fp-heading", "fp-intro-bar")}{rows}</div>'
    if path in _FORMS:
        fields = _bars(*["fp-label", "fp-field"] * 3)
        return f'<div class="fp-main fp-list">{_bars("fp-heading")}{fields}</div>'
    if is_shell_page(path):
        return (
            f'<div class="fp-main fp-list">{_bars("fp-heading", "fp-intro-bar", "fp-block")}</div>'
        )
    return ""
