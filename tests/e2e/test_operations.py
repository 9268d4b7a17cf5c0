"""The owner's operations dashboard: a dead job appears live and is requeued to success."""

from __future__ import annotations

import secrets

from playwright.sync_api import Browser, expect
from sqlmodel import Session

from benchmax.models import Job, JobState, Role, Test, TestState
from benchmax.services.accounts import grant_role
from tests.e2e.conftest import OWNER_HANDLE, PHONE, LiveApp, sign_in, signed_in_page, wait_ready
from tests.e2e.shots import four_shots
from tests.support.factories import make_dead_publish_job, make_test, make_user


def _dead_publish_job(app: LiveApp) -> tuple[int, str]:
    """A publish job that ran out of attempts while its Test was otherwise ready."""
    with Session(app.engine) as session:
        test = make_test(
            session,
            title=f"Stuck {secrets.token_hex(3)}",
            state=TestState.PROCESSING,
            published_at=None,
        )
        job = make_dead_publish_job(session, test)
        session.commit()
        assert job.id is not None
        return job.id, test.id


def test_owner_requeues_a_dead_job_without_reloading(live_app: LiveApp, browser: Browser) -> None:
    owner = signed_in_page(browser, live_app, OWNER_HANDLE)
    owner.goto(f"{live_app.url}/operations")
    wait_ready(owner)
    expect(owner.locator("#ops-jobs")).to_be_visible()

    job_id, test_id = _dead_publish_job(live_app)
    row = owner.locator(f"#ops-dead-{job_id}")
    expect(row).to_be_visible(timeout=20_000)  # arrives by polling, no reload
    expect(row).to_contain_text("OperationalError")
    owner.fill(f"#ops-reason-{job_id}", "Database was restarted; safe to retry now.")
    owner.click(f"#ops-requeue-{job_id}")
    expect(row).to_have_count(0, timeout=30_000)
    with Session(live_app.engine) as session:
        for _ in range(60):
            job = session.get(Job, job_id)
            test = session.get(Test, test_id)
            assert job is not None
            assert test is not None
            if job.state == JobState.DONE:
                break
            session.expire_all()
            owner.wait_for_timeout(500)
        assert job is not None  # as in the loop: mypy does not carry that past it
        assert test is not None
        assert job.state == JobState.DONE
        assert test.state == TestState.PUBLIC


def test_contributors_and_moderators_are_refused(live_app: LiveApp, browser: Browser) -> None:
    suffix = secrets.token_hex(3)
    with Session(live_app.engine) as session:
        for handle in (f"cont{suffix}", f"mode{suffix}"):
            make_user(session, handle=handle, auth_subject=f"local|{handle}")
        session.commit()
        grant_role(session, f"mode{suffix}", Role.MODERATOR)
        session.commit()
    for handle in (f"cont{suffix}", f"mode{suffix}"):
        page = signed_in_page(browser, live_app, handle)
        page.goto(f"{live_app.url}/operations")
        wait_ready(page)
        expect(page.locator("#ops-not-allowed")).to_be_visible()
        expect(page.locator("#ops-jobs-table")).to_have_count(0)


def test_audit_log_names_people_and_tests_and_charts_draw(
    live_app: LiveApp, browser: Browser
) -> None:
    from benchmax.adapters.storage import build_storage
    from benchmax.services.moderation.takedowns import remove_test
    from benchmax.services.operations import record_sample

    title = f"Audited {secrets.token_hex(3)}"
    handle = f"mod{secrets.token_hex(3)}"
    with Session(live_app.engine) as session:
        moderator = make_user(session, handle=handle, role=Role.MODERATOR)
        test = make_test(session, title=title)
        remove_test(session, moderator, test.id, "Spam pasted as the output.")
        record_sample(session, build_storage(live_app.settings))
        session.commit()
        test_id = test.id
    owner = signed_in_page(browser, live_app, OWNER_HANDLE)
    owner.goto(f"{live_app.url}/operations")
    wait_ready(owner)
    audit = owner.locator("#ops-audit-table")
    expect(audit.locator("a.audit-subject", has_text=title).first).to_have_attribute(
        "href", f"/tests/{test_id}"
    )
    expect(audit.locator("a.audit-actor", has_text="@" + handle).first).to_have_attribute(
        "href", f"/u/{handle}"
    )
    assert test_id not in audit.inner_text()  # a title, not a raw id
    expect(owner.locator("#ops-jobs-chart svg")).to_be_visible()
    expect(owner.locator("#ops-backlog-chart svg")).to_have_attribute(
        "aria-label", "Backlog (pending and running jobs) over the last 24 hours"
    )
    # Stat tiles are links to their queue.
    expect(owner.locator("#ops-open-reports-link")).to_have_attribute(
        "href", "/moderation?tab=reports"
    )
    owner.click("#ops-open-appeals-link")
    expect(owner.locator("#tab-appeals")).to_have_attribute("data-state", "active")


def test_the_dead_letter_table_fits_its_column_at_1280(live_app: LiveApp, browser: Browser) -> None:
    """A long error wraps and the reason sits above its buttons, so the row fits; a table
    wider than the page would scroll in its own box, never the page."""
    job_id, _test_id = _dead_publish_job(live_app)
    with Session(live_app.engine) as session:
        job = session.get(Job, job_id)
        assert job is not None
        # As long as the column holds, in one word.
        job.last_error_code = ("psycopg.OperationalError.ConnectionLostWhileWaiting" * 2)[:64]
        session.commit()
    owner = signed_in_page(browser, live_app, OWNER_HANDLE)  # 1280 px wide
    owner.goto(f"{live_app.url}/operations")
    wait_ready(owner)
    row = owner.locator(f"#ops-dead-{job_id}")
    expect(row).to_be_visible()
    fits = owner.evaluate(
        """() => {
            const main = document.getElementById('main').getBoundingClientRect();
            const box = document.getElementById('ops-dead-table').parentElement
                .getBoundingClientRect();
            const inner = document.getElementById('ops-dead-table').parentElement;
            return {page: document.documentElement.scrollWidth - innerWidth,
                    right: box.right - main.right,
                    hidden: inner.scrollWidth - inner.clientWidth};
        }"""
    )
    assert fits["page"] <= 0, fits
    assert fits["right"] <= 0, fits
    # At this width the row fits whole: nothing hides behind the box's own scroll.
    assert fits["hidden"] <= 0, fits
    owner.locator(f"#ops-requeue-{job_id}").scroll_into_view_if_needed()
    expect(owner.locator(f"#ops-requeue-{job_id}")).to_be_in_viewport()
    four_shots(
        browser,
        live_app,
        "/operations",
        "operations-dead-letter",
        handle=OWNER_HANDLE,
        then=lambda page: page.locator("#ops-dead-list").scroll_into_view_if_needed(),
        full_page=False,
    )


def test_a_table_cut_off_on_a_phone_shows_that_it_scrolls(
    live_app: LiveApp, browser: Browser
) -> None:
    """The dead-letter table is wider than a phone: its scrolling box draws a shadow at the
    edge with more behind it (and none once scrolled to the end)."""
    _dead_publish_job(live_app)
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    sign_in(page, live_app, OWNER_HANDLE)
    page.goto(f"{live_app.url}/operations")
    wait_ready(page)
    viewport = page.locator("#ops-dead-list .scroll-x .rt-ScrollAreaViewport")
    expect(viewport).to_be_visible()
    state = viewport.evaluate(
        """(el) => ({hidden: el.scrollWidth - el.clientWidth,
                     shadow: getComputedStyle(el).backgroundImage,
                     attached: getComputedStyle(el).backgroundAttachment})"""
    )
    assert state["hidden"] > 0, state  # the table really is cut off at this width
    assert state["shadow"].count("radial-gradient") == 2, state
    assert state["attached"] == "local, local, scroll, scroll", state
    context.close()
