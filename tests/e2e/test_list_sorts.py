"""The lists beyond the feed — a contributor's page, a model's page, a comparison group — in
the order the visitor picks, kept in the address; and a contributor's page says who they are
once (with their Test count and when they joined), not on every card."""

from __future__ import annotations

import re
import secrets
from datetime import timedelta

from playwright.sync_api import Browser, Page, expect
from sqlmodel import Session, select

from benchmax.models import ModelFamily
from benchmax.models._base import utcnow
from tests.e2e.conftest import LiveApp, wait_ready
from tests.e2e.shots import four_shots
from tests.support.factories import make_review, make_test, make_user


def _titles(page: Page) -> list[str]:
    return [t.strip() for t in page.locator(".test-card .card-title").all_inner_texts()]


def _pick(page: Page, menu: str, label: str) -> None:
    page.click(menu)
    page.get_by_role("option", name=label, exact=True).click()
    expect(page.locator(menu)).to_have_text(label)


def _three_tests(app: LiveApp, family: bool = False) -> tuple[str, list[str]]:
    """A contributor who joined three days ago, with three Tests: the oldest the most reviewed
    and the middle one the best scored; returns the handle and the titles oldest first."""
    tag = secrets.token_hex(3)
    now = utcnow()
    titles = [f"Oldest {tag}", f"Middle {tag}", f"Newest {tag}"]
    shape = [(3, 1000, 40), (2, 999, 90), (1, 0, None)]  # days ago, reviews, score
    with Session(app.engine) as session:
        claude = session.exec(select(ModelFamily).where(ModelFamily.slug == "claude")).one()
        handle = f"sorter{tag}"
        user = make_user(
            session,
            handle=handle,
            display_name=f"Sorter {tag}",
            created_at=now - timedelta(days=3, hours=1),
        )
        for title, (days, count, score) in zip(titles, shape, strict=True):
            make_test(
                session,
                user,
                title=title,
                published_at=now - timedelta(days=days),
                review_count=count,
                review_score=score,
                family_id=claude.id if family else None,
            )
        session.commit()
    return handle, titles


def test_a_profile_sorts_in_the_address_and_names_its_contributor_once(
    live_app: LiveApp, page: Page, browser: Browser
) -> None:
    handle, (oldest, middle, newest) = _three_tests(live_app)
    page.goto(f"{live_app.url}/u/{handle}")
    wait_ready(page)
    assert _titles(page) == [newest, middle, oldest]
    facts = page.locator("#profile-facts")
    expect(facts).to_contain_text(f"@{handle}")
    expect(facts).to_contain_text("3 Tests")
    expect(facts).to_contain_text("joined 3 days ago")
    # The exact moment on hover, from the shared dates component.
    expect(facts.locator("time")).to_have_attribute("title", re.compile(r"\d{2}:\d{2} UTC$"))
    # The page names the contributor once; its cards do not repeat it.
    expect(page.locator(f".test-card a[href='/u/{handle}']")).to_have_count(0)
    expect(page.locator(".test-card").first).not_to_contain_text("Sorter ")

    _pick(page, "#profile-sort", "Most reviewed")
    expect(page.locator(".test-card .card-title").first).to_have_text(oldest)
    assert _titles(page) == [oldest, middle, newest]
    page.wait_for_function("() => location.search === '?sort=most_reviewed'")
    _pick(page, "#profile-sort", "Newest")
    expect(page.locator(".test-card .card-title").first).to_have_text(newest)
    page.wait_for_function("() => location.search === ''")

    # The address alone gives the same view; only scored Tests have a place by score.
    page.goto(f"{live_app.url}/u/{handle}?sort=top_score")
    wait_ready(page)
    expect(page.locator("#profile-sort")).to_have_text("Highest reviewed score")
    assert _titles(page) == [middle, oldest]
    # A bad value is the page's own order, with no error.
    page.goto(f"{live_app.url}/u/{handle}?sort=sideways")
    wait_ready(page)
    expect(page.locator("#profile-sort")).to_have_text("Newest")
    assert _titles(page) == [newest, middle, oldest]

    four_shots(browser, live_app, f"/u/{handle}?sort=most_reviewed", "profile-sorted")


def test_a_model_page_sorts_in_the_address(live_app: LiveApp, page: Page, browser: Browser) -> None:
    _handle, (oldest, middle, newest) = _three_tests(live_app, family=True)
    page.goto(f"{live_app.url}/models/claude?sort=most_reviewed")
    wait_ready(page)
    expect(page.locator("#model-sort")).to_have_text("Most reviewed")
    mine = [t for t in _titles(page) if t in (oldest, middle, newest)]
    assert mine == [oldest, middle, newest]
    _pick(page, "#model-sort", "Highest reviewed score")
    page.wait_for_function("() => location.search === '?sort=top_score'")
    expect(page.locator(".test-card .card-title", has_text=newest)).to_have_count(0)
    assert [t for t in _titles(page) if t in (oldest, middle)] == [middle, oldest]
    # Cards elsewhere keep their contributor line.
    byline = page.locator(".test-card", has_text=middle).locator("a[href^='/u/sorter']")
    expect(byline).to_have_count(1)
    four_shots(browser, live_app, "/models/claude?sort=most_reviewed", "model-sorted")


def test_a_comparison_group_sorts_in_the_address_and_keeps_its_places(
    live_app: LiveApp, page: Page, browser: Browser
) -> None:
    prompt = f"Draw a lighthouse in ASCII art {secrets.token_hex(3)}, at least ten lines tall."
    now = utcnow()
    with Session(live_app.engine) as session:
        reviewer = make_user(session)
        best = make_test(session, prompt=prompt, published_at=now - timedelta(days=3))
        worse = make_test(session, prompt=prompt, published_at=now - timedelta(days=2))
        fresh = make_test(session, prompt=prompt, published_at=now - timedelta(days=1))
        for score in (90, 85):
            make_review(session, best, make_user(session), score=score)
        make_review(session, worse, reviewer, score=20)
        session.commit()
        key, ids = best.prompt_key, (best.id, worse.id, fresh.id)

    def order(page: Page) -> list[str]:
        hrefs = page.locator(".group-member").evaluate_all(
            "els => els.map(e => e.querySelector(\"a[href^='/tests/']\").getAttribute('href'))"
        )
        return [href.removeprefix("/tests/") for href in hrefs]

    page.goto(f"{live_app.url}/prompts/{key}")
    wait_ready(page)
    expect(page.locator("#group-sort")).to_have_text("Highest reviewed score")
    assert order(page) == [ids[0], ids[1], ids[2]]
    _pick(page, "#group-sort", "Newest")
    page.wait_for_function("() => location.search === '?sort=newest'")
    expect(page.locator(".group-member").first).to_contain_text("Not ranked yet")
    assert order(page) == [ids[2], ids[1], ids[0]]
    # The best-scored member keeps its place in the group whatever the order shown.
    expect(page.locator(".group-member").last).to_contain_text("#1")
    # Comparing two keeps the order chosen in the comparison's own address.
    page.locator(".group-member").nth(0).locator(".member-pick").click()
    page.locator(".group-member").nth(1).locator(".member-pick").click()
    page.wait_for_url(re.compile(rf"/prompts/{key}\?sort=newest&compare={ids[2]},{ids[1]}$"))
    wait_ready(page)
    expect(page.locator("#group-sort")).to_have_text("Newest")
    assert order(page) == [ids[2], ids[1], ids[0]]
    page.goto(f"{live_app.url}/prompts/{key}?sort=most_reviewed")
    wait_ready(page)
    assert order(page) == [ids[0], ids[1], ids[2]]
    page.goto(f"{live_app.url}/prompts/{key}?sort=%00bad")
    wait_ready(page)
    expect(page.locator("#group-sort")).to_have_text("Highest reviewed score")
    four_shots(browser, live_app, f"/prompts/{key}?sort=newest", "group-sorted")


def test_the_filters_toggle_counts_filters_not_the_search_word(
    live_app: LiveApp, page: Page, browser: Browser
) -> None:
    page.goto(f"{live_app.url}/?q=haiku")
    wait_ready(page)
    summary = page.locator(".filters-summary")
    expect(summary).to_have_text("More filters")
    expect(page.locator("#feed-filter-panel")).not_to_have_attribute("open", "")
    page.goto(f"{live_app.url}/?q=haiku&status=reviewed&reasoning=high&sort=top_score")
    wait_ready(page)
    expect(summary).to_have_text("Filters (2 active)")
    expect(page.locator("#feed-filter-panel")).to_have_attribute("open", "")
    four_shots(browser, live_app, "/?q=haiku&status=reviewed&reasoning=high", "feed-filters-count")
