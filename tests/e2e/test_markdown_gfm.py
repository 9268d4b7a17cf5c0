"""A Test whose output holds every GitHub-flavoured Markdown element, read in real Chromium.

At desktop and phone width, light and dark: axe and the structure checks of
``test_accessibility`` (so still one ``h1``), headings drawn at GitHub's sizes, task lists as
real disabled checkboxes, and a wide table that scrolls inside its own region while the page
itself never scrolls sideways.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, ViewportSize, expect
from sqlmodel import Session

from tests.e2e.conftest import ARTIFACTS, DESKTOP, PHONE, LiveApp, Theme
from tests.e2e.test_accessibility import _open, _problems
from tests.support.factories import make_test, make_user

GFM = """# A level-one heading
## A level-two heading
### Level three
#### Level four
##### Level five
###### Level six

Text with *emphasis*, **strong**, ~~struck~~, `inline code`, a [link](https://example.com)
and an autolink: https://example.org/path.

> A quote
> > with a nested quote

- one
- two
  - nested
    1. deeper, numbered

1. first
2. second

- [x] a finished task
- [ ] an open task

| Model | Harness | Reasoning | Attempts | Score | Notes on this particular run |
| --- | :---: | ---: | --- | --- | --- |
| claude-sonnet-4-5-20250929 | Claude Code | high | 3 | 87 | passed every check it was given |
| gpt-5-2025-08-07 | ChatGPT web | medium | 1 | 72 | missed the edge case with empty input |

```python
def greet(name: str) -> str:
    # Say hello: a comment, a string, a number and a keyword, each in its colour.
    return f"Hello {name}, you are number {42}!" if name else None
```

---

![A chart of the scores](https://img.example/chart.png)

A claim that needs a source.[^1]

[^1]: The source, as a footnote.
"""

VIEWPORTS = [("desktop", DESKTOP), ("phone", PHONE)]

# What the page and the output look like, measured as the browser laid them out.
LAYOUT_JS = """
() => {
  const output = document.querySelector('#test-output');
  const size = (selector) => parseFloat(getComputedStyle(output.querySelector(selector)).fontSize);
  const h1 = output.querySelector('.md-h1');
  const wrap = output.querySelector('.table-wrap');
  const cell = output.querySelector('td');
  return {
    h1s: document.querySelectorAll('h1').length,
    title: parseFloat(getComputedStyle(document.querySelector('h1')).fontSize),
    body: parseFloat(getComputedStyle(output).fontSize),
    sizes: [1, 2, 3, 4].map((level) => size('.md-h' + level)),
    h1Tag: h1.tagName,
    h1Border: getComputedStyle(h1).borderBottomStyle,
    h1Weight: parseInt(getComputedStyle(h1).fontWeight, 10),
    boxes: [...output.querySelectorAll('input[type=checkbox]')]
      .map((box) => [box.checked, box.disabled]),
    literalBoxes: output.innerText.includes('[x]') || output.innerText.includes('[ ]'),
    tableScrolls: wrap.scrollWidth > wrap.clientWidth,
    cellWidth: cell.getBoundingClientRect().width,
    pageOverflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    footnoteTarget: !!document.getElementById(
      output.querySelector('.footnote-ref a').getAttribute('href').slice(1)),
  };
}
"""


@pytest.fixture(scope="module")
def gfm_test(live_app: LiveApp) -> str:
    with Session(live_app.engine) as session:
        author = make_user(session, handle="gfm-writer", display_name="GFM Writer")
        test = make_test(
            session, author, title="Every GFM element", output_text=GFM, notes="## Notes\n- [ ] x"
        )
        session.commit()
        return test.id


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize(("width", "viewport"), VIEWPORTS)
def test_every_gfm_element_reads_like_github_and_passes_axe(
    live_app: LiveApp,
    browser: Browser,
    gfm_test: str,
    theme: Theme,
    width: str,
    viewport: ViewportSize,
) -> None:
    context = browser.new_context(viewport=viewport, color_scheme=theme)
    context.set_default_timeout(30_000)
    page = context.new_page()
    try:
        path = f"/tests/{gfm_test}"
        _open(page, live_app, path, theme)
        expect(page.locator("#test-output .md-h1")).to_have_text("A level-one heading")
        problems = _problems(page, f"{path} ({width}, {theme})")
        layout = page.evaluate(LAYOUT_JS)
        shot = ARTIFACTS / "markdown" / f"gfm-{width}-{theme}.png"
        shot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shot), full_page=True)
    finally:
        context.close()

    assert not problems, "\n".join(problems)
    assert layout["h1s"] == 1
    # Headings: sized in order, bold, h1 ruled off, all below the Test's own title in size
    # and in the outline (a written h1 is an h3, under the section's h2).
    sizes = layout["sizes"]
    assert sizes == sorted(sizes, reverse=True), sizes
    assert sizes[0] > layout["body"] * 1.4, sizes
    assert sizes[0] < layout["title"], (sizes, layout["title"])
    assert layout["h1Tag"] == "H3"
    assert layout["h1Border"] == "solid"
    assert layout["h1Weight"] >= 600
    # Task lists: real checkboxes, disabled, no literal brackets left.
    assert layout["boxes"] == [[True, True], [False, True]]
    assert not layout["literalBoxes"]
    # Footnotes link to their text.
    assert layout["footnoteTarget"]
    # The page never scrolls sideways; on a phone the wide table scrolls in its own region,
    # with its cells wrapped between words, not squeezed to a letter.
    assert layout["pageOverflow"] <= 0, layout
    assert layout["cellWidth"] > 60, layout
    if width == "phone":
        assert layout["tableScrolls"], layout
