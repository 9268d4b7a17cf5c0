"""``/submit``: the wizard for a contributor who may write, or why they cannot."""

from __future__ import annotations

import reflex as rx

from benchmax.components.blocks import column
from benchmax.components.layout import once_loaded, page_shell, page_title, sign_in_prompt
from benchmax.pages.submit.processing import processing_panel
from benchmax.pages.submit.steps import editor
from benchmax.state.submit.draft import WizardDraftState as D
from benchmax.state.submit.wizard import WizardState as W


def _suspended() -> rx.Component:
    return rx.callout(
        "Your account is suspended, so you cannot submit. You can still browse.",
        icon="ban",
        color_scheme="red",
    )


def submit_page() -> rx.Component:
    return page_shell(
        column(
            page_title("Submit a Test"),
            rx.cond(
                W.notice != "",
                rx.callout(W.notice, icon="info", color_scheme="amber", id="wizard-notice"),
            ),
            once_loaded(
                D.loaded,
                W.signed_in,
                rx.cond(
                    W.viewer_can_write,
                    rx.cond(W.phase == "edit", editor(), processing_panel()),
                    _suspended(),
                ),
                sign_in_prompt("submit a Test", D.sign_in_next, id="submit-sign-in"),
            ),
            # Loaded with the page, not with a step, so they are listening before any step
            # is drawn; each keeps itself to one copy however often it is mounted.
            rx.script(src="/uploads.js"),
            rx.script(src="/wizard.js"),
            rx.script(src="/panel_import.js"),
            max_width="820px",
        )
    )
