"""The Test detail read service: who sees what, and Markdown that cannot carry script."""

from __future__ import annotations

import json
from datetime import timedelta
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt
from sqlmodel import Session

from benchmax.models import (
    EvidenceKind,
    EvidenceState,
    Review,
    ReviewerKind,
    SourceVisibility,
    TestState,
)
from benchmax.models._base import utcnow
from benchmax.services import markdown
from benchmax.services.catalog.linking import link_declared_setup
from benchmax.services.catalog.seed import seed_catalog
from benchmax.services.detail_view import get_test_view
from benchmax.services.markdown import render_markdown
from tests.support.factories import make_evidence, make_test, make_user

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)


@BOTH
def test_public_test_shows_every_detail_field(session: Session) -> None:
    seed_catalog(session)
    author = make_user(session, handle="dana", display_name="Dana D")
    test = make_test(
        session,
        author,
        title="Hexagon",
        model_label="Claude Sonnet 4.5",
        model_version_label="20250929",
        harness_label="Claude Code",
        settings_text="temperature 0",
        notes="First try.",
        output_text="**done**",
        attempts=None,
        failure_reason="should never leak",
    )
    link_declared_setup(session, test)
    session.commit()

    view = get_test_view(session, test.id, viewer_id=None)

    assert view is not None
    assert (view.title, view.prompt, view.settings_text, view.notes) == (
        "Hexagon",
        test.prompt,
        "temperature 0",
        "First try.",
    )
    assert view.attempts is None  # the page prints "attempts not declared"
    assert view.output_html == "<p><strong>done</strong></p>\n"
    assert view.family is not None
    assert view.family.slug == "claude"
    assert view.catalog_model is not None
    assert view.catalog_model.name == "Claude Sonnet 4.5"
    assert view.model_version_name == "claude-sonnet-4-5-20250929"
    assert view.harness is not None
    assert view.harness.slug == "claude-code"
    assert (view.state, view.review_state) == ("public", "awaiting")
    assert (view.contributor_handle, view.contributor_display_name) == ("dana", "Dana D")
    assert (view.is_owner, view.failure_reason) == (False, "")
    assert view.published_at is not None
    assert view.to_json()["published_at"].endswith("+00:00")
    assert json.loads(json.dumps(view.to_json()))["id"] == test.id


def test_unmatched_setup_has_labels_but_no_catalog_names(session: Session) -> None:
    test = make_test(session, model_label="Homebrew 7B", harness_label="shell script")
    link_declared_setup(session, test)

    view = get_test_view(session, test.id, None)

    assert view is not None
    assert (view.model_label, view.harness_label) == ("Homebrew 7B", "shell script")
    assert (view.family, view.catalog_model, view.harness) == (None, None, None)


@BOTH
@pytest.mark.parametrize("state", [s for s in TestState if s != TestState.PUBLIC])
def test_non_public_test_is_the_contributors_alone(session: Session, state: TestState) -> None:
    author = make_user(session)
    stranger = make_user(session)
    test = make_test(
        session,
        author,
        state=state,
        failure_code="image_undecodable",
        failure_reason="The image could not be read.",
    )
    session.commit()

    assert get_test_view(session, test.id, None) is None
    assert get_test_view(session, test.id, stranger.id) is None
    own = get_test_view(session, test.id, author.id)
    assert own is not None
    assert (own.state, own.is_owner) == (str(state), True)
    assert (own.failure_code, own.failure_reason) == (
        "image_undecodable",
        "The image could not be read.",
    )


@pytest.mark.parametrize(
    "test_id",
    ["", "nope", "x" * 10_000, "ABCDEFGHJKMNPQRS", "abcdefghjkmnpqr/", "0000000000000000"],
)
def test_unknown_or_malformed_ids_are_not_found(session: Session, test_id: str) -> None:
    make_test(session)
    assert get_test_view(session, test_id, None) is None


@BOTH
def test_evidence_is_filtered_for_everyone_but_the_contributor(session: Session) -> None:
    author = make_user(session)
    test = make_test(session, author, source_visibility=SourceVisibility.PRIVATE)
    shown = make_evidence(session, test, kind=EvidenceKind.IMAGE, safe_name="a.png", position=0)
    log = make_evidence(session, test, kind=EvidenceKind.TEXT, safe_name="b.log", position=1)
    private_zip = make_evidence(session, test, kind=EvidenceKind.SOURCE, position=2)
    blocked = make_evidence(
        session, test, state=EvidenceState.BLOCKED, block_reason="contains a key", position=3
    )
    quarantined = make_evidence(session, test, state=EvidenceState.QUARANTINED, position=4)
    session.commit()

    public = get_test_view(session, test.id, None)
    own = get_test_view(session, test.id, author.id)

    assert public is not None
    assert own is not None
    assert [e.id for e in public.evidence] == [shown.id, log.id]
    assert [e.id for e in own.evidence] == [
        shown.id,
        log.id,
        private_zip.id,
        blocked.id,
        quarantined.id,
    ]
    assert own.evidence[3].block_reason == "contains a key"
    first = public.evidence[0]
    assert (first.kind, first.safe_name, first.state) == ("image", "a.png", "approved")


def test_public_source_zip_is_listed_for_everyone(session: Session) -> None:
    test = make_test(session, source_visibility=SourceVisibility.PUBLIC)
    source = make_evidence(session, test, kind=EvidenceKind.SOURCE, safe_name="site.zip")

    view = get_test_view(session, test.id, None)

    assert view is not None
    assert [e.id for e in view.evidence] == [source.id]


@BOTH
def test_reviews_are_the_append_only_history_oldest_first(session: Session) -> None:
    reviewer = make_user(session, handle="rita")
    test = make_test(session)
    start = utcnow()
    first = Review(
        test_id=test.id,
        reviewer_kind=ReviewerKind.AI,
        score=40,
        reasoning="Misses the brief.",
        created_at=start,
    )
    session.add(first)
    session.flush()
    correction = Review(
        test_id=test.id,
        reviewer_id=reviewer.id,
        reviewer_kind=ReviewerKind.HUMAN,
        score=70,
        reasoning="The AI review misread the output.",
        corrects_review_id=first.id,
        created_at=start + timedelta(seconds=1),
    )
    session.add(correction)
    session.commit()

    view = get_test_view(session, test.id, None)

    assert view is not None
    assert [(r.id, r.score, r.reviewer_handle) for r in view.reviews] == [
        (first.id, 40, None),
        (correction.id, 70, "rita"),
    ]
    assert view.reviews[1].corrects_review_id == first.id


XSS_PAYLOADS = [
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](java\tscript:alert(1))",
    "[click](vbscript:msgbox(1))",
    "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '<a href="javascript:alert(1)">x</a>',
    "<iframe src=https://evil.example></iframe>",
    "<style>body{display:none}</style>",
    "![pixel](https://tracker.example/p.gif)",
    "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    '[x](https://ok.example "a" onmouseover="alert(1)")',
    "<svg onload=alert(1)>",
]


class _Elements(HTMLParser):
    """The real elements in rendered HTML (escaped text is not an element)."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs)))


@pytest.mark.parametrize("payload", XSS_PAYLOADS)
def test_markdown_cannot_carry_script(payload: str) -> None:
    html = render_markdown(payload)

    elements = _Elements(html).found
    assert {tag for tag, _ in elements} <= {"p", "a"}, html
    attributes = {name for _, attrs in elements for name in attrs}
    assert attributes <= {"href", "title", "rel"}, html
    for _, attrs in elements:
        href = attrs.get("href") or "https://"
        assert href.startswith(("https://", "http://", "mailto:")), html


def test_markdown_keeps_ordinary_formatting_and_marks_links() -> None:
    html = render_markdown(
        "# Title\n\n- one\n- two\n\n```python\nprint('<b>')\n```\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n~~old~~ [docs](https://docs.example/x)"
    )

    for fragment in ('<h3 class="md-h1">Title</h3>', "<li>one</li>", "<table>", "<s>old</s>"):
        assert fragment in html
    # Highlighted code is split into tokens; what must hold is that the markup is escaped.
    assert "<b>" not in html
    assert "&lt;b&gt;" in html
    assert (
        '<a href="https://docs.example/x" rel="nofollow ugc noopener noreferrer">docs</a>' in html
    )


def test_markdown_images_become_plain_links() -> None:
    html = render_markdown("![chart](https://img.example/c.png)")

    assert "<img" not in html
    assert 'href="https://img.example/c.png"' in html


@pytest.mark.parametrize("payload", XSS_PAYLOADS)
def test_sanitiser_alone_stops_script_if_markdown_ever_passed_html(
    monkeypatch: pytest.MonkeyPatch, payload: str
) -> None:
    # The second line of defence: with raw HTML switched on in markdown-it, nh3 still cleans.
    monkeypatch.setattr(markdown, "_MARKDOWN", MarkdownIt("commonmark", {"html": True}))
    render_markdown.cache_clear()  # an earlier test may have rendered the same payload

    elements = _Elements(render_markdown(payload)).found

    assert {tag for tag, _ in elements} <= {"p", "a"}
    for _, attrs in elements:
        assert set(attrs) <= {"href", "title", "rel"}
        assert (attrs.get("href") or "https://").startswith(("https://", "http://", "mailto:"))
    render_markdown.cache_clear()  # nothing rendered with raw HTML on outlives this test
