"""HTTP as clients and caches expect it from the public reads: validators and 304s that move
with the data, Cache-Control by audience, ``Link: rel="next"``, CORS for anonymous reads only,
and the API's JSON (with the security headers) for a path no URL can hold."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from email.utils import format_datetime

import pytest
from sqlalchemy import Engine
from sqlmodel import Session
from starlette.testclient import TestClient

from benchmax.api import build_api, edge
from benchmax.context import AppContext
from benchmax.models import ModelFamily, TestState
from benchmax.models._base import utcnow
from benchmax.services.labels import label_key
from benchmax.services.moderation.reviews import refresh_review_state
from benchmax.settings import Settings
from tests.support.factories import make_review, make_test, make_user

PUBLIC_READS = (
    "/api/v1/tests",
    "/api/v1/tests/{id}",
    "/api/v1/tests/{id}/reviews",
    "/api/v1/prompts",
    "/api/v1/prompts/{key}",
    "/api/v1/feeds/tests.atom",
    "/api/v1/leaderboard",
    "/api/v1/leaderboard/snapshots",
    "/api/v1/leaderboard/public-key",
    "/api/v1/exports",
    "/api/v1/openapi.json",
)


@pytest.fixture
def steady(settings: Settings) -> Settings:
    """No settling time and no reuse of the version read, so a change shows at once."""
    return settings.model_copy(
        update={"api_cache_settle_seconds": 0, "api_cache_version_ttl_seconds": 0}
    )


@pytest.fixture
def client(steady: Settings, engine: Engine) -> Iterator[TestClient]:
    with TestClient(edge(build_api(AppContext.from_settings(steady, engine=engine)), steady)) as c:
        yield c


@pytest.fixture
def seeded(session: Session) -> dict[str, str]:
    ada = make_user(session, handle="ada")
    first = make_test(session, ada, prompt="Same prompt", model_label="GPT-5", title="First")
    second = make_test(session, ada, prompt="Same prompt", harness_label="Aider", title="Second")
    make_review(session, first, make_user(session))
    refresh_review_state(session, first)
    session.commit()
    return {"id": first.id, "key": first.prompt_key, "second": second.id}


def _url(path: str, seeded: dict[str, str]) -> str:
    return path.replace("{id}", seeded["id"]).replace("{key}", seeded["key"])


@pytest.mark.parametrize("path", PUBLIC_READS)
def test_every_public_read_answers_304_to_its_own_etag(
    client: TestClient, seeded: dict[str, str], path: str
) -> None:
    url = _url(path, seeded)
    first = client.get(url)
    assert first.status_code == 200, first.text
    etag = first.headers["ETag"]
    assert first.headers["Cache-Control"].startswith("public, max-age=")
    again = client.get(url, headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["ETag"] == etag
    assert "public" in again.headers["Cache-Control"]
    other = client.get(url, headers={"If-None-Match": 'W/"something-else"'})
    assert other.status_code == 200
    assert other.content == first.content
    star = client.get(url, headers={"If-None-Match": "*"})
    assert star.status_code == 200  # never a 304 for a tag it did not send


@pytest.mark.parametrize("path", ["/api/v1/tests/{id}", "/api/v1/feeds/tests.atom"])
def test_single_resources_and_the_feed_say_when_they_changed(
    client: TestClient, seeded: dict[str, str], path: str
) -> None:
    url = _url(path, seeded)
    stamp = client.get(url).headers["Last-Modified"]
    assert stamp.endswith(" GMT")
    assert client.get(url, headers={"If-Modified-Since": stamp}).status_code == 304
    earlier = format_datetime(utcnow() - timedelta(days=1), usegmt=True)
    assert client.get(url, headers={"If-Modified-Since": earlier}).status_code == 200


def test_a_change_to_the_data_changes_the_etag(
    client: TestClient, session: Session, seeded: dict[str, str]
) -> None:
    urls = [_url(path, seeded) for path in PUBLIC_READS[:6]]
    before = {url: client.get(url).headers["ETag"] for url in urls}
    test = make_test(session, title="Newest")
    session.commit()
    for url in urls:
        answer = client.get(url, headers={"If-None-Match": before[url]})
        assert answer.status_code == 200, url
        assert answer.headers["ETag"] != before[url]
    listed = client.get("/api/v1/tests").json()["items"]
    assert listed[0]["id"] == test.id  # the new body, not a cached one

    # A review of the first Test changes its page (and every list) too.
    page = f"/api/v1/tests/{seeded['id']}"
    etag = client.get(page).headers["ETag"]
    reviewed = session.get(type(test), seeded["id"])
    assert reviewed is not None
    make_review(session, reviewed, make_user(session), score=10)
    session.commit()
    assert client.get(page, headers={"If-None-Match": etag}).status_code == 200

    # Removing a Test changes the list it left.
    etag = client.get("/api/v1/tests").headers["ETag"]
    test.state = TestState.REMOVED
    session.add(test)
    session.commit()
    after = client.get("/api/v1/tests", headers={"If-None-Match": etag})
    assert after.status_code == 200
    assert test.id not in {item["id"] for item in after.json()["items"]}


def test_no_validator_until_a_change_has_settled(
    settings: Settings, engine: Engine, seeded: dict[str, str]
) -> None:
    """A transaction that stamped first may commit last: right after a change, no ETag."""
    with TestClient(build_api(AppContext.from_settings(settings, engine=engine))) as fresh:
        answer = fresh.get("/api/v1/tests")
    assert answer.status_code == 200
    assert "ETag" not in answer.headers
    assert answer.headers["Cache-Control"].startswith("public")


def test_a_private_test_is_never_revalidated(
    client: TestClient, session: Session, seeded: dict[str, str]
) -> None:
    hidden = make_test(session, state=TestState.DRAFT, published_at=None)
    session.commit()
    later = format_datetime(utcnow() + timedelta(days=1), usegmt=True)
    answer = client.get(f"/api/v1/tests/{hidden.id}", headers={"If-Modified-Since": later})
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "not_found"


def test_a_credential_makes_the_answer_private_and_keeps_cors_closed(
    client: TestClient, seeded: dict[str, str]
) -> None:
    anonymous = client.get("/api/v1/tests", headers={"Origin": "https://elsewhere.example"})
    assert anonymous.headers["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in anonymous.headers
    assert "ETag" in anonymous.headers["Access-Control-Expose-Headers"]
    for credential in ({"Authorization": "Bearer bmx_x"}, {"Cookie": "__session=x"}):
        signed = client.get(
            "/api/v1/tests", headers={"Origin": "https://elsewhere.example", **credential}
        )
        assert signed.headers["Cache-Control"].startswith("private")
        assert "Access-Control-Allow-Origin" not in signed.headers


def test_paged_lists_link_to_the_next_page(
    client: TestClient, steady: Settings, seeded: dict[str, str]
) -> None:
    first = client.get("/api/v1/tests?limit=1&model=")
    link = first.headers["Link"]
    assert link.startswith(f"<{steady.app_origin}/api/v1/tests?")
    assert link.endswith('>; rel="next"')
    assert "limit=1" in link
    following = link[1 : link.index(">")].removeprefix(steady.app_origin)
    second = client.get(following)
    assert second.status_code == 200
    assert [i["id"] for i in second.json()["items"]] != [i["id"] for i in first.json()["items"]]
    assert "Link" not in second.headers  # two Tests: the second page is the last


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/feeds/tests.atom%0A",
        "/api/v1/tests%0A",
        "/api/v1/tests/%00",
        "/%0A",
        "/tests/abc%0Adef",
        "/api/v1/prompts/%7F",
    ],
)
def test_a_control_character_in_a_path_is_a_json_404_with_the_security_headers(
    client: TestClient, path: str
) -> None:
    answer = client.get(path)
    assert answer.status_code == 404
    assert answer.headers["content-type"] == "application/json"
    assert answer.json()["error"]["code"] == "not_found"
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert "default-src" in answer.headers["Content-Security-Policy"]


def _ids(client: TestClient, query: str) -> set[str]:
    answer = client.get(f"/api/v1/feeds/tests.atom{query}")
    assert answer.status_code == 200, answer.text
    return {
        line.split("/tests/")[1].split("<")[0]
        for line in answer.text.split("<id>")
        if "/tests/" in line
    }


def test_every_documented_filter_narrows_the_atom_feed(
    client: TestClient, session: Session, seeded: dict[str, str]
) -> None:
    family = ModelFamily(slug="gpt", name="GPT")
    session.add(family)
    session.flush()
    bob = make_user(session, handle="bob")
    lone = make_test(
        session, bob, model_label="Gemini 3", harness_label="Cursor", reasoning_label="high",
        prompt="Draw a pelican riding a bicycle", family_id=family.id, title="Pelican",
        model_key=label_key("Gemini 3", 200), harness_key=label_key("Cursor", 200),
        reasoning_key=label_key("high", 100),
    )  # fmt: skip
    session.commit()
    every = _ids(client, "")
    assert {seeded["id"], seeded["second"], lone.id} <= every
    for query in (
        "?model=Gemini+3",
        "?harness=Cursor",
        "?reasoning=high",
        "?contributor=bob",
        "?contributor=@bob",
        "?family=gpt",
        "?q=pelican",
    ):
        assert _ids(client, query) == {lone.id}, query
    assert _ids(client, "?status=reviewed") == {seeded["id"]}
    assert _ids(client, "?compare=1") == {seeded["id"], seeded["second"]}
    titled = client.get("/api/v1/feeds/tests.atom?q=pelican&model=Gemini+3").text
    assert "?model=Gemini+3&amp;q=pelican" in titled  # the self link keeps the filters


@pytest.mark.parametrize("query", ["?modle=x", "?sort=newest", "?cursor=abc", "?page=2"])
def test_an_unknown_atom_parameter_is_a_clear_400(client: TestClient, query: str) -> None:
    answer = client.get(f"/api/v1/feeds/tests.atom{query}")
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == "unknown_parameter"
    assert error["field"] == query[1:].split("=")[0]
    assert "model" in error["message"]
