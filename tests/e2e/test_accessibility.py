"""Every page, in both colour themes, through axe-core and the structure checks axe leaves out.

axe-core (pinned in ``tests/e2e/axe/package.json``, installed by ``make test-e2e``) is
injected from that folder into the live page — never fetched from a CDN — and any serious or
critical violation fails, printed with its rule id and the elements it found. Beside it:
one ``<main>``, a real ``<nav>``, one banner header and one footer, exactly one ``<h1>``, no
link or button nested in another, every ``<label>`` tied to a control, and every form control
named by something other than its placeholder (axe accepts a placeholder as a name; people
lose it as soon as they type).
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlmodel import Session, select

from benchmax.models import Test, User
from benchmax.presentation.colours import ACCENT, BADGE_TOKENS
from tests.e2e.conftest import (
    DESKTOP,
    OWNER_HANDLE,
    LiveApp,
    Theme,
    allow_console_error,
    make_people,
    not_found_load,
    sign_in,
    wait_ready,
)
from tests.e2e.test_submit import PROCESSING_TIMEOUT, _files
from tests.support.factories import make_report, make_test, make_user, png

# The same pinned axe-core the preview evaluator runs (sandbox/browser-web-v1/package-lock.json).
AXE = (
    Path(__file__).resolve().parents[2]
    / "sandbox"
    / "browser-web-v1"
    / "node_modules"
    / "axe-core"
    / "axe.min.js"
)
BLOCKING = ("serious", "critical")

NOT_FOUND = "/definitely/not/here"
STRANGER_PAGES = [
    "/",
    "/tests/{sample}",
    "/u/benchmax-samples",
    "/models",
    "/models/claude",
    "/leaderboard",
    "/prompts",
    "/prompts/{prompt_key}",
    "/sign-in",
    "/security",
    "/methodology",
    "/data",
    "/api",
    NOT_FOUND,
]
CONTRIBUTOR_PAGES = ["/submit", "/me", "/tests/{own}"]
# The owner also sees the review and moderation forms on a Test and a prompt group.
OWNER_PAGES = ["/moderation", "/operations", "/tests/{sample}", "/prompts/{prompt_key}"]
# Pages served as plain HTML by the API (benchmax/api/html_page.py), with no Reflex state.
SERVER_PAGES = ("/data", "/api")

# What axe does not check: landmarks and headings as this site promises them, nesting of
# interactive elements, labels tied to fields, and names that are more than a placeholder.
STRUCTURE_JS = """
() => {
  const outside = (el) => !el.closest('main, article, section, aside');
  const labelable = 'input:not([type=hidden]), select, textarea, button, meter, output, progress';
  const loose = [...document.querySelectorAll('label')].filter((label) => {
    const target = label.htmlFor ? document.getElementById(label.htmlFor) : null;
    return !(target && target.matches(labelable)) && !label.querySelector(labelable);
  });
  return {
    main: document.querySelectorAll('main').length,
    nav: document.querySelectorAll('nav').length,
    banner: [...document.querySelectorAll('header')].filter(outside).length,
    footer: [...document.querySelectorAll('footer')].filter(outside).length,
    h1: [...document.querySelectorAll('h1')].map((h) => h.textContent.trim()),
    nested: [...document.querySelectorAll(
      'a a, a button, button a, button button, a input, button input, a [tabindex="0"]'
    )].map((el) => el.outerHTML.slice(0, 120)),
    looseLabels: loose.map((label) => label.textContent.trim().slice(0, 60)),
  };
}
"""

# Names computed by axe's own algorithm with every placeholder taken away, then put back.
NAMES_JS = """
() => {
  const selector = [
    'input:not([type=hidden])', 'select', 'textarea', '[role=combobox]', '[role=textbox]',
    '[role=searchbox]', '[role=checkbox]', '[role=radio]', '[role=switch]', '[role=slider]',
    '[role=spinbutton]', '[role=listbox]',
  ].join(', ');
  document.querySelectorAll('details').forEach((d) => { d.open = true; });
  const controls = [...document.querySelectorAll(selector)].filter(
    (el) => !el.closest('[aria-hidden="true"], [hidden], [inert]')
  );
  const saved = controls.map((el) => el.getAttribute('placeholder'));
  controls.forEach((el) => el.removeAttribute('placeholder'));
  axe.setup(document);
  const unnamed = controls
    .filter((el) => !axe.commons.text.accessibleText(el).trim())
    .map((el, i) => el.id ? '#' + el.id : el.outerHTML.slice(0, 120));
  axe.teardown();
  controls.forEach((el, i) => { if (saved[i] !== null) el.setAttribute('placeholder', saved[i]); });
  return {count: controls.length, unnamed};
}
"""

AXE_JS = """
async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ') + ' — ' + n.failureSummary
      .split('\\n').slice(1, 2).join('').trim()),
  }));
}
"""


@pytest.fixture(scope="module")
def paths(live_app: LiveApp) -> dict[str, str]:
    """Values for the page list: a sample Test, its prompt group, the contributor's own
    Test with an open report on it (so the moderation queue has a row of forms). Judge cards
    are audited by ``test_judge.py``, which seeds them: a judge snapshot made here would be
    on the shared app's /operations before that file's first test, which starts from none."""
    people = make_people(live_app, "contributor")
    with Session(live_app.engine) as session:
        sample = session.exec(select(Test).where(Test.is_sample)).first()
        assert sample is not None
        author = session.exec(select(User).where(User.handle == people["contributor"])).one()
        own = make_test(session, author, title="Accessibility check Test")
        reporter = make_user(
            session, handle=f"rep{own.id[:8]}", auth_subject=f"local|rep{own.id[:8]}"
        )
        make_report(session, own, reporter, details="Reported so the queue has an item.")
        session.commit()
        return {
            "sample": sample.id,
            "prompt_key": sample.prompt_key,
            "own": own.id,
            "contributor": people["contributor"],
        }


def _open(page: Page, app: LiveApp, path: str, theme: str) -> None:
    page.goto(app.url + path)
    if path in SERVER_PAGES:
        page.wait_for_selector("main")
        dark = page.evaluate("() => matchMedia('(prefers-color-scheme: dark)').matches")
    else:
        wait_ready(page)
        page.wait_for_load_state("networkidle")
        dark = page.evaluate("() => document.documentElement.classList.contains('dark')")
    assert dark == (theme == "dark"), f"{path} did not render in the {theme} theme"
    page.add_script_tag(path=str(AXE))


def _problems(page: Page, path: str) -> list[str]:
    problems = [
        f"{v['id']} ({v['impact']}): {v['help']}\n      " + "\n      ".join(v["targets"])
        for v in page.evaluate(AXE_JS)
        if v["impact"] in BLOCKING
    ]
    shape = page.evaluate(STRUCTURE_JS)
    for landmark in ("main", "banner", "footer"):
        if shape[landmark] != 1:
            problems.append(f"{shape[landmark]} {landmark} landmarks (want exactly one)")
    if shape["nav"] < 1:
        problems.append("no <nav>")
    if len(shape["h1"]) != 1:
        problems.append(f"{len(shape['h1'])} h1 headings (want one): {shape['h1']}")
    problems += [f"interactive element nested in another: {html}" for html in shape["nested"]]
    problems += [f"<label> tied to no control: {text!r}" for text in shape["looseLabels"]]
    names = page.evaluate(NAMES_JS)
    problems += [
        f"control named only by its placeholder, or not at all: {c}" for c in names["unnamed"]
    ]
    return [f"{path}: {problem}" for problem in problems]


def _audit(browser: Browser, app: LiveApp, theme: Theme, pages: list[str], who: str) -> list[str]:
    context = browser.new_context(viewport=DESKTOP, color_scheme=theme)
    context.set_default_timeout(30_000)
    page = context.new_page()
    if NOT_FOUND in pages:
        # An address that exists nowhere answers 404 on purpose, which Chromium reports.
        allow_console_error(context, not_found_load(NOT_FOUND))
    if who:
        sign_in(page, app, who)
    problems: list[str] = []
    try:
        for path in pages:
            _open(page, app, path, theme)
            problems += _problems(page, path)
    finally:
        context.close()
    return problems


@pytest.fixture(scope="session", autouse=True)
def _axe_is_installed() -> None:
    assert AXE.is_file(), f"{AXE} is missing: run `make test-e2e` (it installs axe-core)"


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("who", ["stranger", "contributor", "owner"])
def test_every_page_passes_axe_and_the_structure_checks(
    live_app: LiveApp, browser: Browser, paths: dict[str, str], theme: Theme, who: str
) -> None:
    pages = {"stranger": STRANGER_PAGES, "contributor": CONTRIBUTOR_PAGES, "owner": OWNER_PAGES}
    handle = {"stranger": "", "contributor": paths["contributor"], "owner": OWNER_HANDLE}[who]
    wanted = [path.format(**paths) for path in pages[who]]
    problems = _audit(browser, live_app, theme, wanted, handle)
    assert not problems, f"{len(problems)} accessibility problems ({who}, {theme}):\n" + "\n".join(
        problems
    )


def test_the_skip_link_is_the_first_tab_stop_and_moves_focus_to_main(
    live_app: LiveApp, page: Page
) -> None:
    page.goto(live_app.url + "/")
    wait_ready(page)
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to content")
    expect(skip).to_be_focused()
    box = skip.bounding_box()
    assert box is not None
    assert box["x"] >= 0, "the focused skip link is off screen"
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'main'")
    page.keyboard.press("Tab")
    inside = page.evaluate("() => !!document.activeElement.closest('main')")
    assert inside, "the Tab after the skip link left the main column"


def test_focus_is_visible_on_header_links(live_app: LiveApp, page: Page) -> None:
    page.goto(live_app.url + "/")
    wait_ready(page)
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    style = page.evaluate(
        "() => { const s = getComputedStyle(document.activeElement);"
        " return JSON.stringify([document.activeElement.id, s.outlineStyle, s.outlineWidth]); }"
    )
    element, outline, width = json.loads(style)
    assert element == "nav-home"
    assert outline != "none", (outline, width)
    assert width != "0px", (outline, width)


def _rgb(colour: str) -> str:
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({red}, {green}, {blue})"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_badges_wear_the_contrast_checked_colours_of_the_theme(
    live_app: LiveApp, browser: Browser, theme: Theme
) -> None:
    """The unit test checks the token table; this checks the page really uses it, in dark
    mode too (a rule that never matches would leave Radix's own, weaker colours)."""
    context = browser.new_context(viewport=DESKTOP, color_scheme=theme)
    page = context.new_page()
    try:
        page.goto(live_app.url + "/")
        wait_ready(page)
        badges = page.locator(".rt-Badge")
        expect(badges.first).to_be_visible()
        seen = page.evaluate(
            "() => [...document.querySelectorAll('.rt-Badge')].map((b) => {"
            " const s = getComputedStyle(b);"
            " return [b.getAttribute('data-accent-color') || '', s.color, s.backgroundColor,"
            " b.classList.contains('rt-variant-outline')]; })"
        )
    finally:
        context.close()
    for scheme, colour, background, outline in seen:
        text, fill = BADGE_TOKENS[scheme or ACCENT][theme]
        expected = "rgba(0, 0, 0, 0)" if outline else _rgb(fill)
        assert (colour, background) == (_rgb(text), expected), (scheme, theme)


def _wizard_state(page: Page, label: str, problems: list[str], ready: str) -> None:
    """Audit the wizard as it stands once ``ready`` is visible (one document: axe is
    injected once, the steps change in place)."""
    expect(page.locator(ready).first).to_be_visible(timeout=PROCESSING_TIMEOUT)
    page.wait_for_load_state("networkidle")
    problems += _problems(page, label)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_wizard_passes_axe_in_every_step_and_with_errors_shown(
    live_app: LiveApp, browser: Browser, theme: Theme
) -> None:
    """Steps 3 to 5 (files with their verdicts, the review, the success state) and the form
    with validation errors showing, which the page list above never reaches."""
    context = browser.new_context(viewport=DESKTOP, color_scheme=theme)
    context.set_default_timeout(30_000)
    page = context.new_page()
    problems: list[str] = []
    try:
        sign_in(page, live_app, f"axe{theme}{secrets.token_hex(3)}")
        _open(page, live_app, "/submit", theme)
        page.click("#wizard-next")  # nothing typed: the prompt's error shows
        _wizard_state(page, "/submit step 1, errors", problems, "#error-prompt")
        page.fill("#field-prompt", "Draw a red square.")
        page.click("#wizard-next")
        expect(page.locator("#wizard-step-title")).to_have_text("Declared setup")
        page.click("#wizard-next")
        _wizard_state(page, "/submit step 2, errors", problems, "#error-harness_label")
        for field, value in (("model_label", "gpt-5"), ("harness_label", "ChatGPT web")):
            page.fill(f"#field-{field}", value)
        page.fill("#field-reasoning_label", "high")
        page.click("#wizard-next")
        expect(page.locator("#wizard-step-title")).to_have_text("Output & evidence")
        page.click("#wizard-next")  # no output and no file
        _wizard_state(page, "/submit step 3, errors", problems, "#error-output_text")
        page.fill("#field-output_text", "A red square, as asked.")
        page.set_input_files(
            "#evidence-input",
            files=_files(
                ("square.png", "image/png", png((220, 30, 30))),
                ("fake.png", "image/png", b"plain text, not an image\n"),
            ),
        )
        _wizard_state(page, "/submit step 3, files", problems, ".file-verdict:has-text('blocked')")
        page.get_by_role("button", name="Remove fake.png").click()
        expect(page.locator(".file-row")).to_have_count(1)
        page.click("#wizard-next")
        expect(page.locator("#wizard-step-title")).to_have_text("Details")
        _wizard_state(page, "/submit step 4", problems, "#field-title")
        page.click("#wizard-next")
        _wizard_state(page, "/submit step 5, review", problems, "#review-prompt")
        page.click("#wizard-submit")
        _wizard_state(page, "/submit success", problems, "#processing-public-url")
    finally:
        context.close()
    assert not problems, f"{len(problems)} accessibility problems ({theme}):\n" + "\n".join(
        problems
    )
