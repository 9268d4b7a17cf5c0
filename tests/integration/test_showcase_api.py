"""The showcase's JSON API: listing, paging, filters, downloads, and who may write."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable

from sqlmodel import Session
from starlette.testclient import TestClient

from benchmax.models import Job, Role, User
from benchmax.services.catalog.linking import link_declared_setup
from benchmax.services.catalog.seed import seed_catalog
from benchmax.services.leaderboard.scoring import seal
from benchmax.services.leaderboard.signing import signing_key
from benchmax.services.leaderboard.snapshots import build_snapshot
from benchmax.settings import Settings
from tests.support.factories import make_review, make_test, make_user

Headers = Callable[[User], dict[str, str]]


def _board(session: Session, settings: Settings, count: int = 7) -> str:
    seed_catalog(session)
    reviewer = make_user(session, role=Role.REVIEWER)
    for n in range(count):
        test = make_test(
            session,
            model_label="GPT-5" if n % 2 else "Claude Sonnet 4.5",
            attempts=1 if n % 3 == 0 else None,
            title=f"Board Test {n}",
        )
        make_review(session, test, reviewer, score=50 + n)
        link_declared_setup(session, test)
    session.commit()
    snapshot = build_snapshot(session, "api", signing_key(settings))
    assert snapshot is not None
    session.commit()
    return snapshot.id


def test_board_pages_follow_the_cursor_and_filters(
    api_client: TestClient, session: Session, settings: Settings
) -> None:
    empty = api_client.get("/api/v1/leaderboard").json()
    assert empty == {"snapshot": None, "items": [], "next_cursor": None}
    snapshot_id = _board(session, settings)
    first = api_client.get("/api/v1/leaderboard?limit=3").json()
    assert first["snapshot"]["id"] == snapshot_id
    assert first["snapshot"]["status"] == "current"
    assert [item["rank"] for item in first["items"]] == [1, 2, 3]
    assert first["items"][0]["test"]["title"] == "Board Test 6"
    top = first["items"][0]["test"]
    assert len(top["prompt_key"]) == 64
    assert top["group_url"] == f"/prompts/{top['prompt_key']}"
    detail = api_client.get(f"/api/v1/tests/{top['id']}").json()
    assert (detail["prompt_key"], detail["group_url"]) == (top["prompt_key"], top["group_url"])
    assert api_client.get("/api/v1" + top["group_url"]).json()["key"] == top["prompt_key"]
    feed = api_client.get("/api/v1/tests").json()["items"]
    assert {item["group_url"] for item in feed} >= {top["group_url"]}
    rest = api_client.get(f"/api/v1/leaderboard?limit=3&cursor={first['next_cursor']}").json()
    assert [item["rank"] for item in rest["items"]] == [4, 5, 6]
    single = api_client.get("/api/v1/leaderboard?single=1").json()["items"]
    assert {item["test"]["title"] for item in single} == {
        "Board Test 0",
        "Board Test 3",
        "Board Test 6",
    }
    assert all(item["attempts"] == 1 for item in single)
    gpt = api_client.get("/api/v1/leaderboard?model=gpt-5").json()["items"]
    assert {item["test"]["model_label"] for item in gpt} == {"GPT-5"}
    assert len(gpt) == 3
    family = api_client.get("/api/v1/leaderboard?family=no-such-family").json()
    assert family["items"] == []
    by_id = api_client.get(f"/api/v1/leaderboard/snapshots/{snapshot_id}?limit=1").json()
    assert by_id["items"][0]["rank"] == 1


def test_bad_cursors_limits_and_ids_are_clear_errors(
    api_client: TestClient, session: Session, settings: Settings
) -> None:
    snapshot_id = _board(session, settings, 2)
    for query in ("cursor=abc", "cursor=-1", "cursor=0", "cursor=99999999999", "limit=0",
                  "limit=101", "limit=x"):  # fmt: skip
        response = api_client.get(f"/api/v1/leaderboard?{query}")
        assert response.status_code == 400, query
        assert response.json()["error"]["code"] in ("invalid_cursor", "invalid_limit")
    for bad in ("nope", "0000000000000000", snapshot_id.upper(), "../" + snapshot_id):
        for path in ("", "/verify", "/download.json", "/download.csv"):
            response = api_client.get(f"/api/v1/leaderboard/snapshots/{bad}{path}")
            assert response.status_code == 404, (bad, path)


def test_snapshots_are_listed_verified_and_downloadable(
    api_client: TestClient, session: Session, settings: Settings
) -> None:
    snapshot_id = _board(session, settings, 4)
    listed = api_client.get("/api/v1/leaderboard/snapshots").json()["items"]
    assert [item["id"] for item in listed] == [snapshot_id]
    assert listed[0]["policy"]["prior_weight"] == 3
    assert api_client.get(f"/api/v1/leaderboard/snapshots/{snapshot_id}/verify").json()["ok"]

    download = api_client.get(f"/api/v1/leaderboard/snapshots/{snapshot_id}/download.json")
    assert download.status_code == 200
    assert "attachment" in download.headers["content-disposition"]
    document = json.loads(download.content)
    assert (
        seal(document["policy"], document["rows"], document["previous_sha256"])
        == (document["sha256"])
    )
    assert document["sha256"] == listed[0]["sha256"]
    key = api_client.get("/api/v1/leaderboard/public-key").json()
    assert key["public_key"] == listed[0]["public_key"] == signing_key(settings).public_hex
    assert (
        key["fingerprint"]
        == listed[0]["key_fingerprint"]
        == document["snapshot"]["key_fingerprint"]
    )

    as_csv = api_client.get(f"/api/v1/leaderboard/snapshots/{snapshot_id}/download.csv")
    assert as_csv.headers["content-type"].startswith("text/csv")
    reader = csv.DictReader(io.StringIO(as_csv.text, newline=""), strict=True)
    rows = list(reader)
    assert as_csv.content.count(b"\r\n") == len(rows) + 1
    assert [int(row["rank"]) for row in rows] == [row["rank"] for row in document["rows"]]
    assert [int(row["band_last"]) for row in rows] == [r["band_last"] for r in document["rows"]]
    assert {row["attempts"] for row in rows} <= {"1", "not declared"}


def test_only_owners_ask_for_a_snapshot(
    api_client: TestClient, session: Session, session_headers: Headers
) -> None:
    owner = make_user(session, role=Role.OWNER)
    moderator = make_user(session, role=Role.MODERATOR)
    session.commit()
    assert api_client.post("/api/v1/leaderboard/snapshots").status_code == 401
    refused = api_client.post("/api/v1/leaderboard/snapshots", headers=session_headers(moderator))
    assert refused.status_code == 403
    accepted = api_client.post("/api/v1/leaderboard/snapshots", headers=session_headers(owner))
    assert accepted.status_code == 202
    assert accepted.json()["queued"] is True
    again = api_client.post("/api/v1/leaderboard/snapshots", headers=session_headers(owner))
    assert again.json()["queued"] is False
    assert session.get(Job, accepted.json()["job_id"]) is not None


def test_prompt_group_api_and_alias_route(
    api_client: TestClient, session: Session, session_headers: Headers
) -> None:
    a = make_test(session, prompt="Same prompt here, twice over.")
    make_test(session, prompt="same PROMPT here,  twice over.")
    b = make_test(session, prompt="Same prompt here, twice over!")
    moderator = make_user(session, role=Role.MODERATOR)
    session.commit()
    largest = api_client.get("/api/v1/prompts").json()["items"]
    assert [(g["prompt_key"], g["size"]) for g in largest] == [(a.prompt_key, 2)]
    group = api_client.get(f"/api/v1/prompts/{a.prompt_key}").json()
    assert len(group["members"]) == 2
    assert "Declared" not in json.dumps(group)  # data, not page text
    for bad in ("x", "A" * 64, "0" * 64):
        assert api_client.get(f"/api/v1/prompts/{bad}").status_code == 404
    body = {"other_key": b.prompt_key, "reason": "Punctuation only differs."}
    assert (
        api_client.post(f"/api/v1/moderation/prompts/{a.prompt_key}/alias", json=body).status_code
        == 401
    )
    joined = api_client.post(
        f"/api/v1/moderation/prompts/{a.prompt_key}/alias",
        json=body,
        headers=session_headers(moderator),
    )
    assert joined.status_code == 200  # like every moderation decision route
    assert joined.json()["decision"]["action"] == "prompt.alias"
    assert len(api_client.get(f"/api/v1/prompts/{b.prompt_key}").json()["members"]) == 3
