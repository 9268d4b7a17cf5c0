"""The feed in a real browser: filters on change with a count, each order, Back after "Load
more", the whole card as one link, escaped highlights, and phones that never scroll sideways."""

from __future__ import annotations

import re
import secrets
from datetime import timedelta
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlmodel import Session

from benchmax.models._base import utcnow
from benchmax.services.catalog.linking import link_declared_setup
from benchmax.services.moderation.reviews import refresh_review_state
from tests.e2e.conftest import ARTIFACTS, DESKTOP, PHONE, LiveApp, Theme, wait_ready
from tests.support.factories import make_review, make_test, make_user

SHOTS = ARTIFACTS / "feed"


def _marker() -> str:
    return "m" + secrets.token_hex(4)


def _publish(
    app: LiveApp, count: int, scores: list[list[int]] | None = None, **fields: Any
) -> list[str]:
    """``count`` public Tests, newest last in the list, the n-th with ``scores[n]`` reviews."""
    ids: list[str] = []
    # A month old, so they sit below the samples that other browser tests expect on page 1.
    base = utcnow() - timedelta(days=30)
    with Session(app.engine) as session:
        author = make_user(session, handle=f"e2e{secrets.token_hex(5)}")
        reviewer = make_user(session, handle=f"e2e{secrets.token_hex(5)}")
        for n in range(count):
            values = {"published_at": base - timedelta(seconds=count - n), **fields}
            values = {k: (v.format(n=n) if isinstance(v, str) else v) for k, v in values.items()}
            test = make_test(session, author, **values)
            link_declared_setup(session, test)
            for score in scores[n] if scores else []:
                make_review(session, test, reviewer, score=score)
            refresh_review_state(session, test)
            ids.append(test.id)
        session.commit()
    return ids


def _titles(page: Page) -> list[str]:
    return [t.strip() for t in page.locator(".test-card .card-title").all_inner_texts()]


def test_filters_apply_on_change_with_a_count(live_app: LiveApp, page: Page) -> None:
    marker = _marker()
    _publish(live_app, 3, harness_label=f"Harness {marker}", title=f"On change {{n}} {marker}")
    page.goto(live_app.url)
    wait_ready(page)
    expect(page.locator("#feed-count")).to_have_text(re.compile(r"^[\d,]+\+? Tests?$"))
    page.click(".filters-summary")
    page.locator("#filter-harness").press_sequentially(f"harness {marker}", delay=20)
    # No Apply: the pause after typing applies it, and the address follows.
    page.wait_for_url(re.compile(rf"harness=harness\+{marker}"))
    expect(page.locator("#feed-count")).to_have_text("3 Tests")
    expect(page.locator(".test-card")).to_have_count(3)
    page.click("#filter-status")
    page.get_by_role("option", name="Ranked").click()
    expect(page.locator("#feed-count")).to_have_text("0 Tests")
    expect(page.locator("#feed-empty")).to_be_visible()
    page.wait_for_url(re.compile(r"status=ranked"))
    page.click("#filter-clear")
    page.wait_for_url(re.compile(r"/$"))
    expect(page.locator(".test-card").first).to_be_visible()
    expect(page.locator("#filter-harness")).to_have_value("")


def test_each_sort_order(live_app: LiveApp, page: Page) -> None:
    marker = _marker()
    # Oldest first: a (no review), b (one review, 95), c (three reviews, 40 on average).
    _publish(
        live_app, 3, scores=[[], [95], [30, 40, 50]], title="Sort {n} " + marker, prompt=marker
    )
    a, b, c = (f"Sort {n} {marker}" for n in range(3))
    page.goto(f"{live_app.url}/?q={marker}")
    wait_ready(page)
    expect(page.locator("#feed-sort")).to_have_text("Best match")
    for label, sort, expected in (
        ("Newest", "newest", [c, b, a]),
        ("Most reviewed", "most_reviewed", [c, b, a]),
        ("Highest reviewed score", "top_score", [b, c]),
    ):
        page.click("#feed-sort")
        page.get_by_role("option", name=label, exact=True).click()
        page.wait_for_url(re.compile(rf"sort={sort}"))
        expect(page.locator(".test-card")).to_have_count(len(expected))
        assert _titles(page) == expected, sort
    expect(page.locator(".test-card", has_text=b).locator(".score-chip")).to_have_text(
        "Score 95 · 1 review"
    )
    expect(page.locator(".test-card", has_text=a).locator(".score-chip")).to_have_count(0)
    # A bookmarked order loads as it was; a made-up one falls back to the default.
    page.goto(f"{live_app.url}/?q={marker}&sort=most_reviewed")
    wait_ready(page)
    assert _titles(page) == [c, b, a]
    page.goto(f"{live_app.url}/?q={marker}&sort=%3Cscript%3E&pages=-4")
    wait_ready(page)
    expect(page.locator(".test-card")).to_have_count(3)
    expect(page.locator("#feed-sort")).to_have_text("Best match")


def test_back_after_load_more_restores_the_list_and_scroll(live_app: LiveApp, page: Page) -> None:
    marker = _marker()
    ids = _publish(live_app, 45, harness_label=f"Deep {marker}", title="Deep {n} " + marker)
    page.goto(f"{live_app.url}/?harness=deep+{marker}")
    wait_ready(page)
    expect(page.locator(".test-card")).to_have_count(20)
    page.click("#feed-more")
    expect(page.locator(".test-card")).to_have_count(40)
    page.wait_for_url(re.compile(r"pages=2"))
    target = page.locator(".test-card").nth(33)
    target.scroll_into_view_if_needed()
    start = page.evaluate("() => window.scrollY")
    page.mouse.wheel(0, 200)
    # The page remembers the position once scrolling settles. The wheel scrolls smoothly over
    # several frames, so wait until it has moved, held still for 400 ms, and been recorded.
    page.wait_for_function(
        """(start) => {
            const y = Math.round(window.scrollY), now = performance.now();
            if (window.__testY !== y) { window.__testY = y; window.__testSince = now; }
            return y > start && now - window.__testSince > 400
                && sessionStorage.getItem('feed-scroll:' + location.search) === String(y);
        }""",
        arg=start,
    )
    before = page.evaluate("() => window.scrollY")
    assert before > 1000
    title = target.locator(".card-title").inner_text()
    target.locator(".test-card-link").click()
    page.wait_for_url(re.compile(r"/tests/"))
    assert page.url.endswith(ids[45 - 1 - 33])
    page.go_back()
    page.wait_for_url(re.compile(r"pages=2"))
    expect(page.locator(".test-card")).to_have_count(40)
    page.wait_for_function(f"() => Math.abs(window.scrollY - {before}) < 60")
    expect(page.locator(".test-card", has_text=title)).to_be_in_viewport()
    # A shared link with the depth rebuilds the same list from scratch.
    fresh = page.context.new_page()
    fresh.goto(page.url)
    wait_ready(fresh)
    expect(fresh.locator(".test-card")).to_have_count(40)
    fresh.click("#feed-more")
    expect(fresh.locator(".test-card")).to_have_count(45)
    expect(fresh.locator("#feed-more")).to_have_count(0)


def test_the_whole_card_is_one_link_and_enter_opens_it(live_app: LiveApp, page: Page) -> None:
    marker = _marker()
    (test_id,) = _publish(live_app, 1, title=f"Whole card {marker}")
    page.goto(f"{live_app.url}/?q={marker}")
    wait_ready(page)
    card = page.locator(".test-card", has_text=marker)
    # One link for the Test (the contributor's is separate, not nested) and nothing inside it.
    expect(card.locator("a[href$='/tests/" + test_id + "']")).to_have_count(1)
    expect(card.locator("a a, a button, button a")).to_have_count(0)
    box = card.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] - 20, box["y"] + box["height"] - 12)  # a corner
    page.wait_for_url(f"**/tests/{test_id}")
    page.go_back()
    wait_ready(page)
    link = page.locator(".test-card", has_text=marker).locator(".test-card-link")
    link.focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/tests/{test_id}")
    # The kinds are icons with names a screen reader reads.
    page.go_back()
    wait_ready(page)
    expect(
        page.locator(".test-card", has_text=marker).get_by_role("img", name="Text output only")
    ).to_have_count(1)


def test_search_highlights_escape_the_tests_own_text(live_app: LiveApp, page: Page) -> None:
    marker = _marker()
    hostile = f'<script>window.__pwned=1</script> "{marker}" <b>bold</b> it\'s'
    _publish(
        live_app,
        1,
        title=hostile,
        prompt=f'<img src=x onerror="window.__pwned=1"> find {marker} here',
    )
    page.goto(f"{live_app.url}/?q=" + f'"{marker}" <script>'.replace(" ", "+"))
    wait_ready(page)
    card = page.locator(".test-card", has_text=marker)
    expect(card).to_have_count(1)
    title = card.locator(".card-title")
    expect(title).to_have_text(hostile)
    expect(title.locator("mark")).to_have_text(["script", "script", marker])
    expect(card.locator(".card-excerpt mark")).to_have_count(1)
    expect(card.locator("script, b, img[src='x']")).to_have_count(0)
    assert page.evaluate("() => window.__pwned") is None
    expect(page.locator("#filter-q")).to_have_value(f'"{marker}" <script>')


def test_how_it_works_can_be_dismissed(live_app: LiveApp, page: Page) -> None:
    page.goto(live_app.url)
    wait_ready(page)
    expect(page.locator("#how-it-works")).to_be_visible()
    page.click("#how-dismiss")
    expect(page.locator("#how-it-works")).to_have_count(0)
    page.reload()
    wait_ready(page)
    expect(page.locator(".test-card").first).to_be_visible()
    expect(page.locator("#how-it-works")).to_have_count(0)


def _no_sideways(page: Page) -> None:
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{page.url} scrolls sideways by {overflow}px"


def test_phones_never_scroll_sideways_and_apply_sits_under_the_thumb(
    live_app: LiveApp, browser: Browser
) -> None:
    long_label = "Unlisted-" + "averyveryverylongmodelname" * 6
    _publish(live_app, 1, model_label=long_label, title="x" * 30 + "y" * 90)
    context = browser.new_context(viewport=PHONE)
    context.set_default_timeout(20_000)
    page = context.new_page()
    try:
        page.goto(live_app.url)
        wait_ready(page)
        _no_sideways(page)
        page.click(".filters-summary")
        apply = page.locator("#filter-apply-phone")
        expect(apply).to_be_visible()
        page.locator("#filter-model").scroll_into_view_if_needed()
        box = apply.bounding_box()
        assert box is not None
        assert box["y"] + box["height"] <= PHONE["height"] + 1
        assert box["y"] > PHONE["height"] / 2  # in the lower half, where the thumb is
        _no_sideways(page)
        page.fill("#filter-model", long_label)
        apply.click()
        expect(page.locator("#feed-filter-panel")).not_to_have_attribute("open", "")
        expect(page.locator("#feed-count")).to_have_text("1 Test")
        page.goto(live_app.url + "/models")
        wait_ready(page)
        expect(page.locator("#declared-labels")).to_contain_text(long_label[:30])
        counts = page.locator(".family-counts").all_inner_texts()
        assert counts, "no model family listed"
        assert all(
            re.fullmatch(r"(1 model|\d+ models) · (1 public Test|\d+ public Tests)", c)
            and not re.match(r"1 models|.* 1 public Tests", c)
            for c in counts
        ), counts
        _no_sideways(page)
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screenshots(live_app: LiveApp, browser: Browser, scheme: Theme) -> None:
    """Not an assertion of looks: pictures for a person to check, and no sideways scroll."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        context = browser.new_context(viewport=viewport, color_scheme=scheme)
        page = context.new_page()
        for path, label in (("/", "feed"), ("/?q=hexagon", "feed-search"), ("/models", "models")):
            page.goto(live_app.url + path)
            wait_ready(page)
            page.wait_for_load_state("networkidle")
            _no_sideways(page)
            page.screenshot(path=str(SHOTS / f"{label}-{name}-{scheme}.png"), full_page=True)
            page.screenshot(path=str(SHOTS / f"{label}-{name}-{scheme}-top.png"))
        page.goto(live_app.url + "/?status=awaiting")
        wait_ready(page)
        page.locator("#filter-contributor").scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / f"feed-filters-{name}-{scheme}.png"))
        context.close()
