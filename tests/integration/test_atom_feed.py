"""The Atom feed of new public Tests: valid Atom with its required elements, escaped
throughout (characters XML cannot carry are dropped), per family and per contributor."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from sqlmodel import Session
from starlette.testclient import TestClient

from benchmax.models import ModelFamily, TestState
from tests.support.factories import make_test, make_user

A = "{http://www.w3.org/2005/Atom}"
NASTY = "<script>alert(1)</script> & \x01\x0b\ufffe ]]> \"q\" 'a'"


def _parse(client: TestClient, query: str = "") -> ET.Element:
    response = client.get(f"/api/v1/feeds/tests.atom{query}")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/atom+xml")
    root = ET.fromstring(response.content)  # noqa: S314 - our own feed; the stdlib parser is the point
    assert root.tag == f"{A}feed"
    for required in ("id", "title", "updated", "author"):
        assert root.find(f"{A}{required}") is not None, required
    assert root.find(f"{A}link[@rel='self']") is not None
    for entry in root.findall(f"{A}entry"):
        for required in ("id", "title", "updated", "link", "author"):
            assert entry.find(f"{A}{required}") is not None, required
    return root


def test_feed_of_all_family_and_contributor(api_client: TestClient, session: Session) -> None:
    family = ModelFamily(slug="claude", name="Claude <Anthropic>")
    session.add(family)
    ada = make_user(session, handle="ada", display_name=NASTY)
    bob = make_user(session, handle="bob")
    nasty = make_test(session, ada, title=NASTY, model_label=NASTY, family_id=family.id)
    plain = make_test(session, bob)
    make_test(session, bob, prompt="REMOVED", state=TestState.REMOVED)
    session.commit()

    everything = _parse(api_client)
    titles = [e.findtext(f"{A}title", "") for e in everything.findall(f"{A}entry")]
    assert len(titles) == 2
    assert "<script>alert(1)</script> & ]]> \"q\" 'a'" in [t.replace("  ", " ") for t in titles]
    assert "REMOVED" not in ET.tostring(everything, encoding="unicode")
    summary = everything.findtext(f"{A}entry/{A}summary", "")
    assert "Declared by contributor — not independently verified" in summary

    by_family = _parse(api_client, "?family=claude")
    ids = [e.findtext(f"{A}id") for e in by_family.findall(f"{A}entry")]
    assert ids == [f"http://localhost:3000/tests/{nasty.id}"]
    assert by_family.findtext(f"{A}title") == "New Tests on BenchMax: Claude <Anthropic>"

    by_bob = _parse(api_client, "?contributor=bob")
    assert [e.findtext(f"{A}id") for e in by_bob.findall(f"{A}entry")] == [
        f"http://localhost:3000/tests/{plain.id}"
    ]
    alternate = by_bob.findall(f"{A}link[@rel='alternate']")[0].get("href")
    assert alternate == "http://localhost:3000/u/bob"


def test_empty_feed_is_still_valid(api_client: TestClient) -> None:
    assert _parse(api_client).findall(f"{A}entry") == []


def test_newest_fifty(api_client: TestClient, session: Session) -> None:
    ada = make_user(session, handle="ada")
    for _ in range(55):
        make_test(session, ada)
    session.commit()
    assert len(_parse(api_client).findall(f"{A}entry")) == 50


def test_unknown_family_or_contributor_is_a_json_404(api_client: TestClient) -> None:
    for query in ("?family=nope", "?contributor=nobody", "?contributor=%00%ff"):
        response = api_client.get(f"/api/v1/feeds/tests.atom{query}")
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"
