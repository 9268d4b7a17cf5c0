"""API tokens on /me: shown once, listed by their last four characters, revocable, usable."""

from __future__ import annotations

import secrets

import httpx
from playwright.sync_api import Page, expect

from tests.e2e.conftest import LiveApp, sign_in, wait_ready


def test_create_use_and_revoke_a_token(live_app: LiveApp, page: Page) -> None:
    sign_in(page, live_app, f"tok{secrets.token_hex(3)}")
    page.goto(f"{live_app.url}/me")
    wait_ready(page)
    page.click("#token-create")  # an empty name is refused with a message
    expect(page.get_by_role("alert")).to_be_visible()
    page.fill("#token-name", "my harness")
    page.click("#token-create")
    token = page.locator("#new-token").inner_text()
    assert token.startswith("bmx_")
    # Copy puts the token itself on the clipboard; the curl example is ready to paste.
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.click("#copy-token")
    expect(page.locator("#copy-token")).to_contain_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == token
    curl = page.locator("#curl-example").inner_text()
    assert f"Authorization: Bearer {token}" in curl
    assert f"{live_app.url}/api/v1/tests" in curl
    page.click("#copy-curl")
    assert page.evaluate("navigator.clipboard.readText()") == curl
    row = page.locator(".token-row")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("my harness")
    expect(row).to_contain_text("bmx_…" + token[-4:])
    assert token not in row.inner_text()

    response = httpx.post(
        f"{live_app.url}/api/v1/tests",
        headers={"Authorization": f"Bearer {token}"},
        files={  # multipart form fields, as a harness sends them
            name: (None, value)
            for name, value in {
                "prompt": "Say hi.",
                "model": "GPT-5",
                "harness": "API direct",
                "reasoning": "none",
                "output": "hi",
            }.items()
        },
        timeout=30,
    )
    assert response.status_code == 202, response.text
    assert response.json()["status"] == "processing"

    page.reload()
    wait_ready(page)
    expect(page.locator("#new-token")).to_have_count(0)  # shown once only
    page.get_by_role("button", name="Revoke").click()
    expect(page.locator(".token-row")).to_have_count(0)
    refused = httpx.get(
        f"{live_app.url}/api/v1/tests/{response.json()['id']}/status",
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )
    assert refused.status_code == 401
