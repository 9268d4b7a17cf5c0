"""Plain-language pages explaining the invariants readers and contributors rely on."""

from __future__ import annotations

import reflex as rx

from benchmax.components.layout import page_intro, page_shell
from benchmax.pages.showcase_method import SHOWCASE_SECTIONS
from benchmax.services.labels import DECLARED_LABEL
from benchmax.state.methodology import MethodologyState as M

PUBLIC_KEY_URL = "/api/v1/leaderboard/public-key"

METHODOLOGY = [
    (
        "What a Test is",
        "A Test is one prompt that a contributor gave to one AI setup, with the output or evidence "
        "that came back. BenchMax never calls the model under test and never asks for, stores or "
        "logs a model API key.",
    ),
    (
        "Declared, not verified",
        f"Model, version, harness and reasoning are what the contributor tells us. Everywhere a "
        f"setup is shown it carries the label “{DECLARED_LABEL}”. Linking a label to our catalog "
        "standardises the name; it proves nothing about what actually ran.",
    ),
    (
        "Cherry-picking is possible",
        "We cannot see attempts that were not submitted. A contributor may declare how many "
        "attempts a Test was picked from; when they do not, the page says “attempts not "
        "declared”. Reviews assess the submitted evidence — they are not a reproduced pass@1.",
    ),
    (
        "Publication never waits for review",
        "Every file passes a mandatory safety scan. When it passes, the Test is public at once "
        "and marked Awaiting review. Reviews by admins, approved reviewers or an AI judge are "
        "added later as an append-only history; none of them is on the path to publication.",
    ),
    (
        "The AI judge",
        "When the operator switches it on, an AI judge adds one review to each newly published "
        "Test, labelled “AI judge”. Every AI review traces to a pinned judge snapshot whose card "
        "is public: the exact model ids, the prompt template and its SHA-256, the rubric, and "
        "every calibration result. A snapshot becomes active only after it grades a private, "
        "human-scored calibration set closely enough — and after it resists an answer that asks "
        "for a perfect score, does not reward padding and does not favour a famous model name. "
        "Before the judge reads a Test, model, vendor and harness names and the contributor's "
        "name are replaced with neutral tokens (text inside images cannot be), the evidence is "
        "cut to fixed bounds and fenced as data the judge must not obey. It answers several "
        "times; the review's score is the median, and the spread is shown beside it. A Test "
        "that tries to instruct the judge is held for a moderator before any ranking. The judge "
        "has a daily budget; when it is spent, reviews wait for the next day. The judge never "
        "delays or decides publication.",
    ),
    (
        "Reviews and the leaderboard",
        "Reviews are never edited or deleted: a correction is a new review that points at the "
        "one it corrects. The leaderboard is a showcase of reviewed, eligible Tests across "
        "different prompts — not a like-for-like benchmark — published as snapshots that never "
        "change.",
    ),
    *SHOWCASE_SECTIONS,
]

PRIVACY = [
    (
        "What we keep",
        "Your handle and display name, the Tests you submit and their files, and the time of each "
        "action. API tokens are stored only as a SHA-256 hash.",
    ),
    (
        "What is public",
        "Public Tests, their approved files (unless you chose to keep a source ZIP private), and "
        "your handle. Drafts and Tests that did not pass safety processing are visible only to "
        "you.",
    ),
    (
        "Image metadata",
        "Every image is decoded and re-encoded before publication, which strips EXIF data such "
        "as GPS location and camera details.",
    ),
    (
        "Logs",
        "Logs, queue messages and job records carry ids and error codes, never your prompt, "
        "output or files.",
    ),
]

TERMS = [
    (
        "Your content",
        "You keep the rights to what you submit and grant BenchMax a licence to display it. "
        "Submit only material you may share.",
    ),
    (
        "No secrets",
        "Never submit API keys, credentials or personal data. Text with a detected secret is "
        "refused before it is stored; a file with one is blocked and its bytes deleted.",
    ),
    (
        "Moderation",
        "Moderators may remove Tests or block files that break these terms. Every decision has "
        "a written reason and is kept permanently; you can see the outcome on My Tests.",
    ),
]


def article_section(heading: str, *body: rx.Component | str, spacing: str = "2") -> rx.Component:
    """An ``<h2>`` and its paragraphs (given as strings) or other pieces."""
    parts = [rx.text(part, size="3") if isinstance(part, str) else part for part in body]
    return rx.vstack(rx.heading(heading, size="5", as_="h2"), *parts, spacing=spacing)


def bullets(items: list[str]) -> rx.Component:
    """A reading page's bulleted list, in the size of its paragraphs."""
    return rx.unordered_list(*[rx.list_item(item, size="3") for item in items])


def article(
    title: str,
    intro: str,
    sections: list[tuple[str, str]],
    *extra: rx.Component,
    after: tuple[rx.Component, ...] = (),
) -> rx.Component:
    """A reading page: one h1, a grey intro, then (h2, paragraph) sections; ``extra`` goes
    between the intro and the sections, ``after`` after them."""
    return page_shell(
        rx.vstack(
            *page_intro(title, intro, title_size="8", size="4"),
            *extra,
            *[article_section(heading, body) for heading, body in sections],
            *after,
            spacing="5",
            max_width="760px",
        )
    )


def _signing_key() -> rx.Component:
    """The public key that signs snapshots, so a download can be checked without trusting
    this site's database; compare its fingerprint with one published elsewhere."""
    key = rx.cond(
        M.public_key != "",
        rx.vstack(
            rx.text("Public key (Ed25519, raw, hex):", size="3"),
            rx.code(M.public_key, class_name="break-all", id="signing-public-key"),
            rx.text("Fingerprint (SHA-256 of the raw key):", size="3"),
            rx.code(M.fingerprint, class_name="break-all", id="signing-fingerprint"),
            spacing="1",
            width="100%",
        ),
        rx.text("No signing key is configured on this site yet.", size="3"),
    )
    return rx.box(
        article_section(
            "The key that signs every snapshot",
            "Each snapshot's SHA-256 covers its policy, its rows and the previous snapshot's "
            "SHA-256, and is signed with the site's Ed25519 key, which is never stored in the "
            "database. Anyone can check a downloaded snapshot offline with this public key.",
            key,
            rx.text(
                "The same key as JSON, for scripts: ",
                rx.link(
                    PUBLIC_KEY_URL, href=PUBLIC_KEY_URL, is_external=True, id="signing-key-link"
                ),
                ". The snapshot's JSON download carries the previous seal and the signature; "
                "docs/showcase.md in the source gives a short recipe to verify it.",
                size="3",
            ),
        ),
        id="signing-key",
        width="100%",
    )


def methodology_page() -> rx.Component:
    return article(
        "Methodology",
        "How to read a Test, and what BenchMax can and cannot tell you.",
        METHODOLOGY,
        after=(_signing_key(),),
    )


def privacy_page() -> rx.Component:
    return article("Privacy", "What BenchMax stores about you and what it shows.", PRIVACY)


def terms_page() -> rx.Component:
    return article("Terms", "The short version of the rules for contributing.", TERMS)
