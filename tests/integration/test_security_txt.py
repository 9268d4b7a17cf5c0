"""``/.well-known/security.txt`` as RFC 9116 asks, and the contact setting it is written from."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from pydantic import ValidationError
from starlette.testclient import TestClient

from benchmax.api.security_txt import security_txt
from benchmax.models._base import utcnow
from benchmax.settings import Settings
from benchmax.state.security import contact_text


def _fields(body: str) -> dict[str, str]:
    lines = [line for line in body.splitlines() if line and not line.startswith("#")]
    return dict(line.split(": ", 1) for line in lines)


def test_the_file_is_plain_text_with_the_required_fields(
    api_client: TestClient, settings: Settings
) -> None:
    before = utcnow()
    response = api_client.get("/.well-known/security.txt")

    assert response.status_code == 200
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    fields = _fields(response.text)
    assert fields["Contact"] == "mailto:security@example.org"
    assert fields["Canonical"] == f"{settings.app_origin}/.well-known/security.txt"
    assert fields["Policy"] == f"{settings.app_origin}/security"
    assert fields["Preferred-Languages"] == "en"
    expires = datetime.fromisoformat(fields["Expires"].replace("Z", "+00:00"))
    # Always ahead of now, and under the year RFC 9116 recommends at most.
    assert before + timedelta(days=30) < expires < before + timedelta(days=365)
    assert fields["Expires"].endswith("Z")


def test_the_contact_is_the_operators_and_expires_moves_with_the_clock() -> None:
    settings = Settings(_env_file=None, security_contact="https://example.org/report")
    first = _fields(security_txt(settings, utcnow()))
    later = _fields(security_txt(settings, utcnow() + timedelta(days=90)))

    assert first["Contact"] == "https://example.org/report"
    assert later["Expires"] > first["Expires"]


@pytest.mark.parametrize(
    "contact",
    [
        "",
        "security@example.org",  # an address is not a URI
        "http://example.org/report",  # RFC 9116: web contacts must be https
        "javascript:alert(1)",
        "mailto:a@example.org\nContact: mailto:attacker@example.net",  # a second line
        'mailto:a@example.org"><script>',
        "https:",
    ],
)
def test_a_contact_that_is_not_a_one_line_mailto_or_https_uri_is_refused(contact: str) -> None:
    with pytest.raises(ValidationError, match="BENCHMAX_SECURITY_CONTACT"):
        Settings(_env_file=None, security_contact=contact)


def test_the_page_shows_the_address_of_a_mailto_contact() -> None:
    assert contact_text("mailto:security@example.org?subject=BenchMax") == "security@example.org"
    assert contact_text("https://example.org/report") == "https://example.org/report"
