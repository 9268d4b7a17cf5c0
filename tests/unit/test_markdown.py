"""Contributor Markdown: GitHub-style reading, and nothing a contributor types becomes active."""

from __future__ import annotations

import re
import time

import nh3
import pytest

from benchmax.presentation.colours import CODE_BACKGROUNDS
from benchmax.presentation.contrast import AA, contrast, readable
from benchmax.presentation.highlight import highlight_css
from benchmax.services import markdown
from benchmax.services.markdown import LINK_REL, render_markdown


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
    css = highlight_css(".dark .markdown-body .code-block", "dark")
    lines = css.splitlines()
    assert lines
    assert all(line.startswith(".dark .markdown-body .code-block .") for line in lines)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_token_colour_meets_aa_on_every_code_background(theme: str) -> None:
    checked = 0
    for rule in highlight_css(".c", theme).splitlines():
        found = re.search(r"(?<![-\w])color: (#[0-9a-fA-F]{3,6})\b", rule)
        if not found:
            continue
        own = re.search(r"background-color: (#[0-9a-fA-F]{3,6})", rule)
        for background in [own.group(1)] if own else CODE_BACKGROUNDS[theme]:
            assert contrast(found.group(1), background) >= AA, (rule, background)
        checked += 1
    assert checked > 20


def test_a_colour_that_already_reads_is_kept() -> None:
    css = highlight_css(".c", "light")
    # pygments' default keyword green is above AA on every light background: left alone.
    assert ".c .k { color: #008000" in css


def test_headings_keep_their_look_two_levels_below_the_page() -> None:
    html = render_markdown("# One\n## Two\n### Three\n#### Four\n##### Five\n###### Six")
    assert '<h3 class="md-h1">One</h3>' in html
    assert '<h4 class="md-h2">Two</h4>' in html
    assert '<h5 class="md-h3">Three</h5>' in html
    assert '<h6 class="md-h4">Four</h6>' in html
    assert '<h6 class="md-h6">Six</h6>' in html
    assert "<h1" not in html
    assert "<h2" not in html


def test_task_lists_are_disabled_checkboxes_named_by_their_text() -> None:
    html = render_markdown("- [x] done\n- [ ] open\n- plain")
    assert '<ul class="contains-task-list">' in html
    assert html.count('type="checkbox"') == 2
    assert html.count('disabled="disabled"') == 2
    assert html.count('checked="checked"') == 1
    assert re.search(r"<label><input [^>]*> done</label>", html)
    assert "[x]" not in html
    assert "[ ]" not in html


def test_a_task_box_cannot_become_another_control() -> None:
    """Whatever markup reached the sanitiser, an input leaves it a disabled checkbox."""
    html = nh3.clean(
        '<input type="text" value="x">',
        tags={"input"},
        attributes={"input": {"type", "value"}},
        set_tag_attribute_values=markdown._FORCED_ATTRIBUTES,
    )
    assert 'type="checkbox"' in html
    assert 'disabled="disabled"' in html
    assert 'type="text"' not in html


def test_tables_scroll_in_a_keyboard_region() -> None:
    html = render_markdown("| a | b |\n|---|---|\n| 1 | 2 |")
    assert html.startswith(
        '<div class="table-wrap" tabindex="0" role="region" aria-label="Table"><table>'
    )
    assert "</table></div>" in html


def test_code_blocks_are_reachable_by_keyboard() -> None:
    assert '<pre tabindex="0"><code>' in render_markdown("```\nx = 1\n```")


def test_images_are_labelled_links_and_never_a_link_inside_a_link() -> None:
    assert render_markdown("![a chart](https://img.example/c.png)") == (
        f'<p><a href="https://img.example/c.png" rel="{LINK_REL}">Image: a chart</a></p>\n'
    )
    badge = render_markdown("[![build](https://ci.example/b.svg)](https://ci.example)")
    assert badge.count("<a ") == 1
    assert ">build</a>" in badge


def test_footnotes_link_both_ways_under_ids_of_their_own() -> None:
    html = render_markdown("Claim[^1].\n\n[^1]: The source.")
    ids = re.findall(r'id="([^"]+)"', html)
    assert len(ids) == 2
    assert all(re.fullmatch(r"fn(ref)?-[0-9a-f]{10}-1", ident) for ident in ids)
    assert f'href="#{ids[0].replace("fnref", "fn")}"' in html
    assert 'aria-label="Back to reference"' in html
    assert '<section class="footnotes">' in html
    # Two texts on one page (notes and output) never share an id.
    other = re.findall(r'id="([^"]+)"', render_markdown("Other[^1].\n\n[^1]: Elsewhere."))
    assert not set(ids) & set(other)


@pytest.mark.parametrize(
    ("tag", "attribute", "value"),
    [
        ("li", "id", "main"),
        ("a", "id", "not-found"),
        ("div", "tabindex", "5"),
        ("div", "role", "button"),
        ("a", "aria-label", "Sign in"),
        ("pre", "tabindex", "-1"),
    ],
)
def test_only_the_renderers_own_attribute_values_survive(
    tag: str, attribute: str, value: str
) -> None:
    assert markdown._attribute(tag, attribute, value) is None


def test_a_colour_below_aa_is_moved_just_far_enough() -> None:
    grey = readable("#bbbbbb", ["#ffffff"])
    assert contrast(grey, "#ffffff") >= AA
    assert contrast(grey, "#ffffff") < AA + 0.2  # no darker than it needs to be
    assert len({grey[1:3], grey[3:5], grey[5:7]}) == 1  # still a grey
    assert readable("#8b949e", ["#111113"]) == "#8b949e"  # already reads: kept
