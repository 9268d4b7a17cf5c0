"""The Reflex app: pages, the mounted JSON API, security headers and background services."""

from __future__ import annotations

import reflex as rx

from benchmax import runtime
from benchmax.api import build_api
from benchmax.api.security_headers import SecurityHeadersMiddleware
from benchmax.api.upload_limits import UploadSizeLimit
from benchmax.components.layout import page_shell
from benchmax.components.not_found import not_found_panel
from benchmax.lifespan import job_runtime
from benchmax.pages.feed import feed_page
from benchmax.pages.leaderboard import leaderboard_page
from benchmax.pages.me import me_page
from benchmax.pages.models import model_detail_page, models_page
from benchmax.pages.moderation import moderation_page
from benchmax.pages.operations import operations_page
from benchmax.pages.profile import profile_page
from benchmax.pages.sign_in import sign_in_page
from benchmax.pages.static import methodology_page, privacy_page, security_page, terms_page
from benchmax.pages.submit import submit_page
from benchmax.pages.test_detail import test_detail_page
from benchmax.state.feed import FeedState
from benchmax.state.me import MeState
from benchmax.state.models import ModelDetailState, ModelsState
from benchmax.state.moderation import ModerationState
from benchmax.state.operations import OperationsState
from benchmax.state.profile import ProfileState
from benchmax.state.session import SessionState
from benchmax.state.sign_in import SignInState
from benchmax.state.submit import SubmitState
from benchmax.state.test_actions import TestActionsState
from benchmax.state.test_detail import TestDetailState

STYLE = {
    ".skip-link": {"position": "absolute", "left": "-9999px"},
    ".skip-link:focus": {
        "left": "1rem",
        "top": "1rem",
        "z_index": "100",
        "background": "var(--color-panel-solid)",
        "padding": "0.5rem",
    },
    ".markdown-body": {"line_height": "1.6", "overflow_wrap": "anywhere"},
    ".markdown-body pre": {
        "overflow_x": "auto",
        "padding": "0.75rem",
        "background": "var(--gray-a3)",
        "border_radius": "var(--radius-3)",
    },
    ".card-title": {"overflow_wrap": "anywhere"},
    ".markdown-body ul": {"list_style": "disc", "padding_left": "1.5rem"},
    ".markdown-body ol": {"list_style": "decimal", "padding_left": "1.5rem"},
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
        "outline": "2px solid var(--accent-8)",
        "background": "var(--accent-a2)",
    },
    ".upload-item": {
        "display": "grid",
        "grid_template_columns": "minmax(0, 1fr) 10rem auto",
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
    ".filters-summary": {"cursor": "pointer", "font_weight": "500", "color": "var(--accent-11)"},
}

app = rx.App(
    style=STYLE,
    api_transformer=[
        build_api(),
        lambda asgi: UploadSizeLimit(asgi, runtime.settings().upload_max_request_bytes),
        lambda asgi: SecurityHeadersMiddleware(asgi, runtime.settings()),
    ],
)

app.register_lifespan_task(job_runtime)

app.add_page(feed_page, route="/", title="BenchMax — community AI Tests", on_load=FeedState.on_load)
app.add_page(
    test_detail_page,
    route="/tests/[test_id]",
    title="Test · BenchMax",
    on_load=[TestDetailState.on_load, TestActionsState.on_load],
)
app.add_page(
    profile_page, route="/u/[handle]", title="Contributor · BenchMax", on_load=ProfileState.on_load
)
app.add_page(models_page, route="/models", title="Models · BenchMax", on_load=ModelsState.on_load)
app.add_page(
    model_detail_page,
    route="/models/[slug]",
    title="Model · BenchMax",
    on_load=ModelDetailState.on_load,
)
app.add_page(
    leaderboard_page,
    route="/leaderboard",
    title="Leaderboard · BenchMax",
    on_load=SessionState.load_viewer,
)
app.add_page(
    moderation_page,
    route="/moderation",
    title="Moderation · BenchMax",
    on_load=ModerationState.on_load,
)
app.add_page(
    submit_page, route="/submit", title="Submit a Test · BenchMax", on_load=SubmitState.on_load
)
app.add_page(me_page, route="/me", title="My Tests · BenchMax", on_load=MeState.on_load)
app.add_page(
    sign_in_page, route="/sign-in", title="Sign in · BenchMax", on_load=SignInState.on_load
)
app.add_page(
    methodology_page,
    route="/methodology",
    title="Methodology · BenchMax",
    on_load=SessionState.load_viewer,
)
app.add_page(
    privacy_page, route="/privacy", title="Privacy · BenchMax", on_load=SessionState.load_viewer
)
app.add_page(terms_page, route="/terms", title="Terms · BenchMax", on_load=SessionState.load_viewer)
app.add_page(
    security_page, route="/security", title="Security · BenchMax", on_load=SessionState.load_viewer
)
app.add_page(
    operations_page,
    route="/operations",
    title="Operations · BenchMax",
    on_load=OperationsState.on_load,
)
app.add_page(
    lambda: page_shell(not_found_panel()),
    route="404",
    title="Not found · BenchMax",
    on_load=SessionState.load_viewer,
)
