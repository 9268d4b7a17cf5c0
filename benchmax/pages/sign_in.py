"""``/sign-in`` — local handle picker in development, Clerk's component in production."""

from __future__ import annotations

import reflex as rx

from benchmax.adapters.auth.clerk_frontend import clerk_mount_sign_in_js, clerk_script_tags
from benchmax.components.blocks import column, muted, notice
from benchmax.components.fields import field_label
from benchmax.components.layout import page_shell, page_title
from benchmax.context import app_context
from benchmax.services.accounts import HANDLE_RULES
from benchmax.state.sign_in import SignInState as S


def _local_form() -> rx.Component:
    return rx.form(
        column(
            field_label("Handle", "handle", required=True, weight="medium"),
            rx.input(
                id="handle",
                name="handle",
                default_value=S.handle,
                placeholder="ada",
                required=True,
                max_length=32,
                auto_complete="username",
                size="3",
                width="100%",
            ),
            muted(HANDLE_RULES, size="1"),
            field_label("Display name (optional)", "display_name", weight="medium"),
            rx.input(
                id="display_name",
                name="display_name",
                default_value=S.display_name,
                placeholder="Ada Lovelace",
                max_length=80,
                size="3",
                width="100%",
            ),
            notice(S.error, "error", id="sign-in-error", width="100%"),
            rx.button("Sign in", type="submit", size="3", width="100%", id="sign-in-submit"),
            spacing="3",
        ),
        on_submit=S.sign_in,
        width="100%",
    )


def _clerk_sign_in() -> rx.Component:
    """Clerk's hosted component; it sets the ``__session`` cookie our verifier reads."""
    settings = app_context().settings
    scripts = [
        rx.script(src=tag.src, custom_attrs=tag.attrs) for tag in clerk_script_tags(settings)
    ]
    mount = clerk_mount_sign_in_js("clerk-sign-in", redirect_url=settings.app_origin + "/")
    return rx.fragment(rx.box(id="clerk-sign-in", width="100%"), *scripts, rx.script(mount))


def sign_in_page() -> rx.Component:
    return page_shell(
        rx.center(
            rx.card(
                column(
                    page_title("Sign in", size="6"),
                    rx.cond(
                        S.local_mode,
                        rx.vstack(
                            rx.callout(
                                "Development sign-in: pick a handle, or reuse one, to sign in. "
                                "This is switched off in production, where Clerk is used.",
                                icon="info",
                                size="1",
                                width="100%",
                            ),
                            _local_form(),
                            width="100%",
                        ),
                        _clerk_sign_in()
                        if app_context().settings.auth_backend == "clerk"
                        else rx.text("Sign-in is not configured.", id="clerk-sign-in"),
                    ),
                ),
                width="100%",
                max_width="420px",
                size="3",
            ),
            padding_y="2rem",
        )
    )
