"""The Reflex app: pages, the mounted JSON API, security headers and background services."""

from __future__ import annotations

from typing import Any, cast

import reflex as rx
from starlette.types import ASGIApp

from benchmax.api import build_api, edge
from benchmax.api.upload_limits import UploadSizeLimit
from benchmax.components.layout import SHELL_STYLE, page_shell
from benchmax.components.not_found import not_found_panel
from benchmax.context import AppContext, use_app_context
from benchmax.first_paint.middleware import FirstPaintMiddleware
from benchmax.first_paint.status import PageStatusMiddleware
from benchmax.lifespan import job_runtime
from benchmax.pages.detail import detail_page
from benchmax.pages.feed import feed_page
from benchmax.pages.judge_card import judge_card_page
from benchmax.pages.leaderboard import leaderboard_page
from benchmax.pages.me import me_page
from benchmax.pages.models import model_detail_page, models_page
from benchmax.pages.moderation import moderation_page
from benchmax.pages.operations import operations_page
from benchmax.pages.profile import profile_page
from benchmax.pages.prompts import prompt_group_page, prompts_page
from benchmax.pages.security import security_page
from benchmax.pages.sign_in import sign_in_page
from benchmax.pages.static import methodology_page, privacy_page, terms_page
from benchmax.pages.submit.page import submit_page
from benchmax.settings import get_settings
from benchmax.state.actions_panel import TestActionsState
from benchmax.state.detail import TestDetailState
from benchmax.state.feed import FeedState
from benchmax.state.judge_card import JudgeCardState
from benchmax.state.judge_operations import JudgeOperationsState
from benchmax.state.leaderboard import LeaderboardState
from benchmax.state.me import MeState
from benchmax.state.methodology import MethodologyState
from benchmax.state.models import ModelDetailState, ModelsState
from benchmax.state.moderation import ModerationState
from benchmax.state.operations import OperationsState
from benchmax.state.profile import ProfileState
from benchmax.state.prompts import PromptGroupState, PromptsState
from benchmax.state.security import SecurityState
from benchmax.state.session import SessionState
from benchmax.state.showcase_detail import TestShowcaseState
from benchmax.state.sign_in import SignInState
from benchmax.state.submit.draft import WizardDraftState

STYLE = {
    ".card-title": {"overflow_wrap": "anywhere"},
    ".visually-hidden": {
        "position": "absolute",
        "width": "1px",
        "height": "1px",
        "overflow": "hidden",
        "clip": "rect(0 0 0 0)",
        "white_space": "nowrap",
    },
    ".dropzone": {
        "display": "block",
        "width": "100%",
        "padding": "1.5rem",
        "border": "2px dashed var(--gray-a7)",
        "border_radius": "var(--radius-4)",
        "cursor": "pointer",
    },
    ".dropzone:focus-within, .dropzone.dragging": {
        "outline": "2px solid var(--focus-8)",
        "background": "var(--accent-a2)",
    },
    ".upload-item": {
        "display": "grid",
        "grid_template_columns": "minmax(0, 1fr) 8rem auto auto",
        "gap": "0.75rem",
        "align_items": "center",
        "padding": "0.5rem",
        "font_size": "14px",
    },
    ".upload-item progress": {"width": "100%"},
    ".upload-failed": {"color": "var(--red-11)", "grid_template_columns": "minmax(0, 1fr) auto"},
    ".upload-failed .upload-note": {"grid_column": "1 / -1"},
    ".upload-dismiss": {
        "background": "none",
        "border": "none",
        "cursor": "pointer",
        "color": "inherit",
        "font_size": "16px",
    },
    ".upload-cancel": {
        "background": "none",
        "border": "1px solid var(--gray-a7)",
        "border_radius": "var(--radius-2)",
        "cursor": "pointer",
        "color": "inherit",
        "padding": "0.125rem 0.5rem",
    },
    ".file-thumb:empty": {"display": "none"},
    ".choice": {"display": "flex", "align_items": "center", "gap": "0.5rem", "cursor": "pointer"},
    ".file-thumb-image": {
        "width": "48px",
        "height": "48px",
        "object_fit": "cover",
        "border_radius": "var(--radius-2)",
        "display": "block",
    },
    ".step-heading:focus-visible": {"outline": "2px solid var(--focus-8)"},
    ".filters-summary": {"cursor": "pointer", "font_weight": "500", "color": "var(--accent-11)"},
    ".break-all": {"word_break": "break-all"},
}

# The one application context of this process: the API closes over it and the states read it
# (Reflex builds states itself, so they cannot be handed it as an argument).
CONTEXT = AppContext.from_settings(get_settings())
use_app_context(CONTEXT)


class BenchMaxApp(rx.App):
    """Reflex's app, with the edge every response passes last: security headers, the path
    guard, and the CORS policy (over Reflex's own CORS, which allows credentials)."""

    def __call__(self) -> ASGIApp:
        return edge(super().__call__(), CONTEXT.settings)


app = BenchMaxApp(
    style=cast("dict[str, Any]", STYLE | SHELL_STYLE),
    stylesheets=["/feed.css", "/shell.css"],
    api_transformer=[
        build_api(CONTEXT),
        lambda asgi: UploadSizeLimit(asgi, CONTEXT.settings.upload_max_request_bytes),
        lambda asgi: PageStatusMiddleware(asgi, CONTEXT),
        lambda asgi: FirstPaintMiddleware(asgi, CONTEXT, _directory_routes()),
    ],
)

app.register_lifespan_task(job_runtime, ctx=CONTEXT)


def _directory_routes() -> frozenset[str]:
    """The routes the build writes as folders (``/leaderboard/index.html``): every page but
    the feed and those with a parameter. Asked when the app is served, after ``PAGES``."""
    return frozenset(
        route for route, *_ in PAGES if route.startswith("/") and route != "/" and "[" not in route
    )


# route, page, title (before " · BenchMax"), on_load
PAGES = [
    ("/", feed_page, "", FeedState.on_load),
    ("/tests/[test_id]", detail_page, TestDetailState.tab_title,
     [TestDetailState.on_load, TestActionsState.reset_messages,
      TestShowcaseState.load_showcase]),
    ("/u/[handle]", profile_page, ProfileState.tab_title, ProfileState.on_load),
    ("/judges/[judge_id]", judge_card_page, "AI judge", JudgeCardState.on_load),
    ("/models", models_page, "Models", ModelsState.on_load),
    ("/models/[slug]", model_detail_page, "Model", ModelDetailState.on_load),
    ("/leaderboard", leaderboard_page, "Leaderboard", LeaderboardState.on_load),
    ("/prompts", prompts_page, "Same-prompt groups", PromptsState.on_load),
    ("/prompts/[key]", prompt_group_page, "Same prompt, different setups",
     PromptGroupState.on_load),
    ("/moderation", moderation_page, "Moderation", ModerationState.on_load),
    ("/submit", submit_page, "Submit a Test", WizardDraftState.on_load),
    ("/me", me_page, "My Tests", MeState.on_load),
    ("/sign-in", sign_in_page, "Sign in", SignInState.on_load),
    ("/methodology", methodology_page, "Methodology", MethodologyState.on_load),
    ("/privacy", privacy_page, "Privacy", SessionState.load_viewer),
    ("/terms", terms_page, "Terms", SessionState.load_viewer),
    ("/security", security_page, "Security", SecurityState.on_load),
    ("/operations", operations_page, "Operations",
     [OperationsState.on_load, JudgeOperationsState.on_load]),
    ("404", lambda: page_shell(not_found_panel()), "Not found", SessionState.load_viewer),
]  # fmt: skip

for route, page, title, on_load in PAGES:
    app.add_page(
        page,
        route=route,
        # A page whose title depends on what it shows passes a state var that says it all.
        title=title
        if not isinstance(title, str)
        else f"{title} · BenchMax"
        if title
        else "BenchMax — community AI Tests",
        on_load=on_load,
    )
