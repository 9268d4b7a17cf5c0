"""``/submit``: the wizard for a contributor who may write, or why they cannot."""

from __future__ import annotations

import reflex as rx

from benchmax.components.layout import once_loaded, page_shell
from benchmax.pages.submit.processing import processing_panel
from benchmax.pages.submit.steps import editor
from benchmax.state.submit import SubmitState as S


def _signed_out() -> rx.Component:
    return rx.callout.root(
        rx.callout.icon(rx.icon("log-in")),
        rx.callout.text(
            "Sign in to submit a Test. ",
            rx.link("Sign in", href="/sign-in?next=/submit", id="submit-sign-in"),
        ),
        width="100%",
    )


def _suspended() -> rx.Component:
    return rx.callout(
        "Your account is suspended, so you cannot submit. You can still browse.",
        icon="ban",
        color_scheme="red",
    )


def submit_page() -> rx.Component:
    return page_shell(
        rx.vstack(
            rx.heading("Submit a Test", size="7"),
            rx.cond(
                S.notice != "",
                rx.callout(S.notice, icon="info", color_scheme="amber", id="wizard-notice"),
            ),
            once_loaded(
                S.loaded,
                S.signed_in,
                rx.cond(
                    S.viewer_can_write,
                    rx.cond(S.phase == "edit", editor(), processing_panel()),
                    _suspended(),
                ),
                _signed_out(),
            ),
            # Loaded with the page, not with a step, so they are listening before any step
            # is drawn; each keeps itself to one copy however often it is mounted.
            rx.script(src="/uploads.js"),
            rx.script(src="/wizard.js"),
            spacing="4",
            width="100%",
            max_width="820px",
        )
    )
