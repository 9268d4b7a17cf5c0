"""Contributor Markdown: GitHub-style reading, and nothing a contributor types becomes active."""

from __future__ import annotations

import re
import time

import pytest

from benchmax.services.markdown import LINK_REL, highlight_css, render_markdown


def test_single_newlines_are_kept() -> None:
    html = render_markdown("An old silent pond\nA frog jumps into the pond\nSplash! Silence again")
    assert html.count("<br>") == 2
    assert "An old silent pond<br>" in html


def test_tables_keep_alignment_and_nothing_else_in_style() -> None:
    html = render_markdown("| a | b |\n|:--|--:|\n| 1 | 2 |")
    assert "<table>" in html
    assert "<th" in html
    assert "<td" in html
    assert 'style="text-align:right"' in html


def test_fenced_code_is_highlighted_with_label_and_copy_button() -> None:
    html = render_markdown("```python\nimport os\n```")
    assert '<span class="code-lang">python</span>' in html
    assert '<button type="button" class="copy-code"' in html
    assert '<span class="kn">import</span>' in html


def test_unknown_or_hostile_language_is_plain_text() -> None:
    html = render_markdown('```"><img src=x onerror=alert(1)>\n<b>hi</b>\n```')
    assert '<span class="code-lang">text</span>' in html
    assert "<img" not in html
    assert "onerror" not in html
    assert "&lt;b&gt;hi&lt;/b&gt;" in html


def test_links_are_visible_and_marked_untrusted() -> None:
    html = render_markdown("see https://example.com and [docs](https://example.org/x)")
    assert html.count(f'rel="{LINK_REL}"') == 2
    assert 'href="https://example.com"' in html


@pytest.mark.parametrize(
    "text",
    [
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x](java\nscript:alert(1))",
        "[x](data:text/html;base64,PHNjcmlwdD4=)",
        "[x](vbscript:msgbox(1))",
        "<a href='javascript:alert(1)'>x</a>",
        "<javascript:alert(1)>",
    ],
)
def test_no_script_urls(text: str) -> None:
    html = render_markdown(text)
    assert not re.search(r'href="\s*(javascript|data|vbscript)', html, re.IGNORECASE)


@pytest.mark.parametrize(
    "text",
    [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "<iframe src=https://evil.example></iframe>",
        '<div style="position:fixed">x</div>',
        "<svg onload=alert(1)>",
        "<style>body{display:none}</style>",
    ],
)
def test_raw_html_is_text(text: str) -> None:
    html = render_markdown(text)
    assert "<script" not in html
    assert "<img" not in html
    assert "<iframe" not in html
    assert "<svg" not in html
    assert "<style" not in html
    assert "<div style" not in html


def test_images_elsewhere_are_links_not_fetched() -> None:
    html = render_markdown("![tracker](https://evil.example/pixel.png)")
    assert "<img" not in html
    assert 'href="https://evil.example/pixel.png"' in html


def test_class_attributes_cannot_be_smuggled() -> None:
    html = render_markdown('<span class="copy-code">x</span> <button>b</button>')
    assert "<span" not in html
    assert "<button>" not in html


@pytest.mark.parametrize(
    "text",
    ["> " * 20_000, "- " * 10_000, "[" * 100_000, "*" * 100_000, "`" * 50_000, "a_" * 40_000],
)
def test_pathological_input_renders_quickly(text: str) -> None:
    render_markdown.cache_clear()
    started = time.monotonic()
    html = render_markdown(text)
    assert time.monotonic() - started < 3.0
    assert html.count("<blockquote>") <= 25  # nesting is capped


def test_highlight_css_is_scoped() -> None:
    css = highlight_css(".dark .markdown-body .code-block", "monokai")
    lines = css.splitlines()
    assert lines
    assert all(line.startswith(".dark .markdown-body .code-block .") for line in lines)
