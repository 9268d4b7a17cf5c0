"""The showcase in the browser: reviewers review, an owner snapshots, readers compare setups."""

from __future__ import annotations

import csv
import io
import json
import re
import secrets
import time

from playwright.sync_api import Browser, Page, ViewportSize, expect
from sqlmodel import Session

from benchmax.models import Role, prompt_key
from benchmax.services.accounts import find_user_by_handle, grant_role
from benchmax.services.catalog.linking import link_declared_setup
from benchmax.services.leaderboard.scoring import seal
from benchmax.services.leaderboard.signing import signing_key
from benchmax.services.leaderboard.snapshots import build_snapshot
from tests.e2e.conftest import (
    ARTIFACTS,
    OWNER_HANDLE,
    PHONE,
    LiveApp,
    signed_in_page,
    wait_ready,
)
from tests.support.factories import make_review, make_test, make_user

WIDE: ViewportSize = {"width": 1440, "height": 900}
# A score and its 95% interval in words, as "78.46 (75.03 en dash 81.89)".
INTERVAL_TEXT = re.compile(r"\d+\.\d\d \(\d+\.\d\d\u2013\d+\.\d\d\)")
PROMPT = "Draw an SVG lighthouse at dusk with a rotating beam, in one HTML file."


def _setup(app: LiveApp) -> tuple[dict[str, str], dict[str, str]]:
    suffix = secrets.token_hex(3)
    handles = {name: f"{name[:5]}{suffix}" for name in ("contributor", "alice", "bob")}
    with Session(app.engine) as session:
        for handle in handles.values():
            make_user(session, handle=handle, auth_subject=f"local|{handle}")
        session.commit()
        grant_role(session, handles["alice"], Role.REVIEWER)
        grant_role(session, handles["bob"], Role.REVIEWER)
        contributor = find_user_by_handle(session, handles["contributor"])
        tests = {
            "claude": make_test(session, contributor, title=f"Lighthouse Claude {suffix}",
                                prompt=PROMPT, model_label="Claude Sonnet 4.5", attempts=1),
            "gpt": make_test(session, contributor, title=f"Lighthouse GPT {suffix}",
                             prompt="  " + PROMPT.upper().replace(" ", "  ") + "\u200b",
                             model_label="GPT-5", harness_label="Codex CLI"),
            "other": make_test(session, contributor, title=f"Haiku {suffix}",
                               prompt=f"Write a haiku about lighthouses {suffix}."),
        }  # fmt: skip
        session.commit()
        return handles, {name: test.id for name, test in tests.items()}


def _board_of_thirty(app: LiveApp) -> str:
    """Thirty reviewed Tests (one to five reviews each, every third on its own harness) in a
    fresh snapshot; returns the suffix their titles and that harness carry."""
    suffix = secrets.token_hex(3)
    with Session(app.engine) as session:
        contributor = make_user(session, handle=f"board{suffix}")
        reviewers = [make_user(session, role=Role.REVIEWER) for _ in range(5)]
        for i in range(30):
            test = make_test(
                session,
                contributor,
                title=f"Board {suffix} {i:02d}",
                prompt=f"Board prompt {suffix} number {i}.",
                harness_label=f"Rig{suffix}" if i % 3 == 0 else "Claude Code",
                attempts=1,
            )
            link_declared_setup(session, test)
            for n, reviewer in enumerate(reviewers[: 1 + i % 5]):
                make_review(session, test, reviewer, score=min(100, 40 + 2 * i + 3 * n))
        session.commit()
        assert build_snapshot(session, f"e2e-board-{suffix}", signing_key(app.settings))
        session.commit()
    return suffix


def _rows(page: Page) -> list[dict[str, str]]:
    """Each shown row's title, band and score text, in page order."""
    return page.evaluate(
        """() => [...document.querySelectorAll('#board-rows tr.board-entry')].map(row => ({
            title: row.querySelector('.board-test a, .board-test p')?.textContent || '',
            band: row.querySelector('.board-band').textContent,
            score: row.querySelector('.board-interval').textContent,
            reviews: row.querySelector('td[data-label=Reviews]').textContent,
        }))"""
    )


def test_leaderboard_table_bands_sort_filter_and_phone(live_app: LiveApp, browser: Browser) -> None:
    suffix = _board_of_thirty(live_app)
    page = browser.new_page(viewport=WIDE)
    page.goto(f"{live_app.url}/leaderboard")
    wait_ready(page)
    rows = _rows(page)
    assert len(rows) == 25  # a page; the rest behind "more"
    expect(page.locator("#snapshot-date")).to_contain_text(" ranked Tests")
    assert page.locator("#board-slice-note").count() == 0  # the full snapshot: nothing to say
    ours = {row["title"]: row for row in rows if suffix in row["title"]}
    assert ours, "the new snapshot's rows are shown"
    for row in rows:
        assert re.fullmatch(r"#\d+(\u2013#\d+)?", row["band"]), row
        assert INTERVAL_TEXT.fullmatch(row["score"]), row
        assert re.fullmatch(r"1 review|[2-9] reviewsrange \d+ to \d+", row["reviews"]), row
    assert any("\u2013" in row["band"] for row in rows)  # overlapping intervals share places
    assert page.locator("#board-rows .interval-range").count() == 25
    model = page.locator("#board-rows .board-model").first
    assert str(model.get_attribute("title")).startswith("Declared by the contributor: ")
    page.screenshot(path=str(ARTIFACTS / "screens" / "leaderboard-30-desktop.png"), full_page=True)

    # Sorting by reviews is a link: Tab to it and press Enter; the order and the URL change.
    page.locator("#board-sort a", has_text="Most reviews").focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**sort=reviews**")
    wait_ready(page)
    expect(page.locator("#board-sort a[aria-current=true]")).to_have_text("Most reviews")
    expect(page.locator("#board-rows th[aria-sort=descending]")).to_have_text("Reviews")
    by_reviews = _rows(page)
    counts = [int(row["reviews"].split()[0]) for row in by_reviews]
    assert counts == sorted(counts, reverse=True)
    assert [row["title"] for row in by_reviews] != [row["title"] for row in rows]
    expect(page.locator("#board-slice-note")).to_contain_text("not recomputed")

    # A filter shows a slice of the same sealed snapshot: every row keeps its band and score.
    page.goto(f"{live_app.url}/leaderboard?harness=Rig{suffix}")
    wait_ready(page)
    expect(page.locator("#board-slice-note")).to_contain_text("filtered slice")
    sliced = _rows(page)
    assert len(sliced) == 10
    for row in sliced:
        if row["title"] in ours:
            assert (row["band"], row["score"]) == (
                ours[row["title"]]["band"],
                ours[row["title"]]["score"],
            )
    assert any(row["title"] in ours for row in sliced)

    for scheme in ("light", "dark"):
        phone = browser.new_page(viewport=PHONE, color_scheme=scheme)
        phone.goto(f"{live_app.url}/leaderboard")
        wait_ready(phone)
        _fits(phone, f"leaderboard-30-phone-{scheme}")
        first = phone.locator("#board-rows tr.board-entry").first
        box = first.bounding_box()
        assert box is not None
        assert box["y"] + box["height"] <= PHONE["height"], "#1 is below the fold on a phone"
        expect(first.locator(".board-band")).to_have_text(rows[0]["band"])
        expect(phone.locator("#board-about summary")).to_be_visible()  # collapsed on a phone
        expect(phone.locator("#snapshot-formula")).not_to_be_visible()
        phone.close()
    page.emulate_media(color_scheme="dark")
    page.goto(f"{live_app.url}/leaderboard")
    wait_ready(page)
    expect(page.locator("#snapshot-formula")).to_be_visible()  # open below the table
    fingerprint = page.locator("#snapshot-key").inner_text()
    assert re.fullmatch("[0-9a-f]{64}", fingerprint)
    page.screenshot(
        path=str(ARTIFACTS / "screens" / "leaderboard-30-desktop-dark.png"), full_page=True
    )

    # The key that signed it is on /methodology, with the URL to fetch it from.
    page.goto(f"{live_app.url}/methodology")
    wait_ready(page)
    expect(page.locator("#signing-fingerprint")).to_have_text(fingerprint)
    expect(page.locator("#signing-key-link")).to_have_attribute(
        "href", "/api/v1/leaderboard/public-key"
    )
    expect(page.get_by_text("#1\u2013#2: the lucky review")).to_be_visible()
    page.set_viewport_size(PHONE)
    page.locator("#signing-key").scroll_into_view_if_needed()
    _fits(page, "methodology-signing-key-phone")


def _review(page: Page, app: LiveApp, test_id: str, score: int) -> None:
    page.goto(f"{app.url}/tests/{test_id}")
    wait_ready(page)
    page.fill("#review-score", str(score))
    page.fill("#review-reasoning", "The evidence shows every requirement of the prompt met.")
    page.click("#review-submit")
    expect(page.locator("#review-notice")).to_be_visible()


def _wait_for_row(page: Page, app: LiveApp, title: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while True:
        page.goto(f"{app.url}/leaderboard")
        wait_ready(page)
        if page.locator(".board-entry", has_text=title).count():
            return
        assert time.monotonic() < deadline, "the snapshot did not appear"
        page.wait_for_timeout(1000)


def test_reviews_snapshot_leaderboard_and_comparison_group(
    live_app: LiveApp, browser: Browser
) -> None:
    handles, ids = _setup(live_app)
    alice = signed_in_page(browser, live_app, handles["alice"])
    bob = signed_in_page(browser, live_app, handles["bob"])
    for test_id, score in ((ids["claude"], 92), (ids["gpt"], 74), (ids["other"], 60)):
        _review(alice, live_app, test_id, score)
    _review(bob, live_app, ids["claude"], 88)

    owner = signed_in_page(browser, live_app, OWNER_HANDLE)
    owner.goto(f"{live_app.url}/leaderboard")
    wait_ready(owner)
    owner.click("#publish-snapshot")
    expect(owner.locator("#board-notice")).to_contain_text("snapshot")
    suffix = handles["alice"][5:]
    _wait_for_row(owner, live_app, f"Lighthouse Claude {suffix}")

    reader = browser.new_page(viewport={"width": 1280, "height": 900})
    reader.goto(f"{live_app.url}/leaderboard")
    wait_ready(reader)
    expect(reader.locator("#leaderboard-caveat")).to_contain_text("not a like-for-like benchmark")
    expect(reader.locator("#snapshot-formula")).to_contain_text("number of counted scores + 3")
    claude = reader.locator(".board-entry", has_text=f"Lighthouse Claude {suffix}")
    expect(claude).to_contain_text("2 reviews")
    expect(claude).to_contain_text("range 88 to 92")
    expect(claude).to_contain_text("best of 1 attempt")
    # Said once for every row, in the table's caption.
    expect(reader.locator("#board-rows caption")).to_contain_text(
        "Declared by contributor — not independently verified"
    )
    gpt = reader.locator(".board-entry", has_text=f"Lighthouse GPT {suffix}")
    expect(gpt).to_contain_text("attempts not declared")
    assert reader.locator("#publish-snapshot").count() == 0  # owners only

    download = reader.request.get(
        live_app.url + str(reader.locator("#download-json").get_attribute("href"))
    )
    assert download.ok
    document = json.loads(download.body())
    assert (
        seal(document["policy"], document["rows"], document["previous_sha256"])
        == (document["sha256"])
    )
    assert ids["claude"] in {row["test_id"] for row in document["rows"]}
    csv_href = str(reader.locator("#download-csv").get_attribute("href"))
    csv_text = reader.request.get(live_app.url + csv_href).text()
    csv_rows = list(csv.DictReader(io.StringIO(csv_text, newline=""), strict=True))
    assert [row["test_id"] for row in csv_rows] == [row["test_id"] for row in document["rows"]]
    reader.screenshot(path=str(ARTIFACTS / "screens" / "leaderboard-desktop.png"), full_page=True)

    reader.click("text=Filter the showcase")
    reader.locator("#board-single").check()
    reader.click("#board-apply")
    reader.wait_for_url("**single=1**")
    wait_ready(reader)
    expect(reader.locator(".board-entry", has_text=f"Lighthouse Claude {suffix}")).to_be_visible()
    expect(reader.locator(".board-entry", has_text=f"Lighthouse GPT {suffix}")).to_have_count(0)

    reader.goto(f"{live_app.url}/tests/{ids['gpt']}")
    wait_ready(reader)
    expect(reader.locator("#test-ranked")).to_contain_text("Ranked #")
    link = reader.locator("#test-group-link")
    expect(link).to_have_text("1 other setup tried this prompt")
    link.click()
    reader.wait_for_url("**/prompts/**")
    wait_ready(reader)
    members = reader.locator("#group-members .group-member")
    expect(members).to_have_count(2)
    expect(members.nth(0)).to_contain_text(f"Lighthouse Claude {suffix}")  # higher shrunk score
    expect(members.nth(0)).to_contain_text("#1 in this group")
    # Each scored member's band and interval, drawn and in words, as on the leaderboard.
    expect(members.nth(0).locator(".member-band")).to_contain_text("rank band #1")
    for member in (members.nth(0), members.nth(1)):
        expect(member.locator(".board-interval")).to_have_text(INTERVAL_TEXT)
        expect(member.locator(".interval-range")).to_have_count(1)
    expect(members.nth(1)).to_contain_text("GPT-5 · Codex CLI")
    expect(members.nth(1)).to_contain_text("attempts not declared")
    expect(members.nth(0)).to_contain_text("Declared by contributor — not independently verified")
    expect(reader.locator("#group-caveat")).to_contain_text("not a controlled benchmark")
    reader.screenshot(path=str(ARTIFACTS / "screens" / "prompt-group-desktop.png"), full_page=True)
    reader.set_viewport_size(PHONE)
    _fits(reader, "prompt-group-phone")
    reader.goto(f"{live_app.url}/prompts")
    wait_ready(reader)
    group_href = f"/prompts/{prompt_key(PROMPT)}"  # named by any of its variants' first line
    expect(reader.locator(f'#prompt-groups a[href="{group_href}"]')).to_have_count(1)
    _fits(reader, "prompts-phone")
    reader.goto(f"{live_app.url}/leaderboard")
    wait_ready(reader)
    _fits(reader, "leaderboard-phone")


def _fits(page: Page, name: str) -> None:
    """Keep a screenshot, and fail if the page scrolls sideways at this width."""
    page.screenshot(path=str(ARTIFACTS / "screens" / f"{name}.png"), full_page=True)
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{name} scrolls sideways by {overflow}px"
