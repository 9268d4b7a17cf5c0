"""``/security``: how to report a vulnerability, and how BenchMax keeps evidence away from you.

The contact is the operator's (``BENCHMAX_SECURITY_CONTACT``); the same address is the
``Contact`` of ``/.well-known/security.txt``, so people and scanners find one answer.
"""

from __future__ import annotations

import reflex as rx

from benchmax.components.layout import server_page
from benchmax.pages.static import article, article_section, bullets
from benchmax.presentation.texts import SECURITY_TXT_PATH as TXT
from benchmax.state.security import SecurityState as S

DESIGN = [
    (
        "Evidence lives on another origin",
        "Files are served only by a separate, cookieless user-content service on a different "
        "origin. It checks the database on every request and answers an identical 404 for "
        "anything that is not public. HTML and SVG are downloaded, never rendered.",
    ),
    (
        "Uploads are untrusted",
        "Every file lands in quarantine first. Its type is read from its bytes, images are fully "
        "decoded with a pixel cap, ZIPs are inspected without extraction, and text is checked "
        "for secrets and prompt-injection signals.",
    ),
]

WHAT_TO_SEND = [
    "which page, API route or file is affected, and on which origin (the app or the "
    "user-content origin that serves evidence);",
    "the steps to reproduce it, and what you expected to happen instead;",
    "what an attacker could gain: someone else's data, a session, running code, a way "
    "around a moderation decision or the safety scan.",
]

RULES = [
    "Test only with accounts and Tests you created. Never read, change or delete other "
    "people's data, and stop as soon as you see any.",
    "No denial of service, spam or social engineering of contributors or moderators.",
    "Give the operators a reasonable time to fix the problem before you publish it.",
]


def _report_section() -> rx.Component:
    contact = rx.link(S.contact_label, href=S.contact_href, id="security-contact")
    txt = rx.link(rx.code(TXT), href=TXT, **server_page(TXT))
    return rx.card(
        article_section(
            "Report a vulnerability",
            rx.text(
                "Found a problem? Tell the operators of this instance privately first, at ",
                contact,
                ". You will get an answer, and credit when the fix ships if you want it.",
                size="3",
            ),
            "Please include:",
            bullets(WHAT_TO_SEND),
            rx.text("Machine-readable: ", txt, size="2", color="var(--gray-11)"),
            spacing="3",
        ),
        width="100%",
    )


def security_page() -> rx.Component:
    return article(
        "Security",
        "How to report a vulnerability, and how BenchMax keeps untrusted evidence away from you.",
        DESIGN,
        _report_section(),
        article_section("Testing safely", bullets(RULES)),
    )
