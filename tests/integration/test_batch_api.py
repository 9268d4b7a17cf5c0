"""The batch submission and panel import APIs over Starlette's TestClient on a real database."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, func
from sqlmodel import Session, select
from starlette.applications import Starlette
from starlette.testclient import TestClient

from benchmax.adapters.storage.local import LocalStorage
from benchmax.api import build_api
from benchmax.api.batch import MAX_BATCH_BYTES, batch_routes
from benchmax.api.errors import EXCEPTION_HANDLERS
from benchmax.api.openapi.document import build_document
from benchmax.api.submissions import submission_routes
from benchmax.context import AppContext
from benchmax.models import AccountStatus, Job, Test, TestState, User
from benchmax.services import tokens
from benchmax.services.detail_view import get_test_view
from benchmax.services.errors import RateLimited
from benchmax.services.jobs import JobContext
from benchmax.services.safety import SafetyLimits
from benchmax.services.submissions.batch import Batch, slot_by_tests, submit_batch
from benchmax.services.submissions.panel import MAX_REPLY_BYTES
from benchmax.settings import Settings
from tests.support.panel_replies import ANSWERS, five_seats, reply, reply_text, seat
from tests.support.submission_helpers import contributor, drain
from tests.unit.safety.corpus import fake_secrets

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
KEY = fake_secrets()["openai_api_key"]


def _setup(model: str, output: str, **extra: Any) -> dict[str, Any]:
    return {
        "model": model,
        "harness": "Claude Code",
        "reasoning": "high",
        "output": output,
        **extra,
    }


def three_setups(second_output: str = "Works too.") -> dict[str, Any]:
    return {
        "prompt": "Build a todo app in one HTML file.",
        "title": "Todo app, three ways",
        "setups": [
            _setup("Claude Sonnet 4.5", "It works.", attempts=2, model_version="20250929"),
            _setup("GPT-5", second_output, settings="temperature 0"),
            _setup("Gemini 2.5 Pro", "Also done.", gateway_call_id="call_0003"),
        ],
    }


class Api:
    def __init__(self, engine: Engine, settings: Settings, root: Path) -> None:
        self.engine = engine
        self.storage = LocalStorage(root / "objects")
        self.ctx = AppContext.from_settings(settings, engine=engine, storage=self.storage)
        routes = [*submission_routes(self.ctx), *batch_routes(self.ctx)]
        self.client = TestClient(Starlette(routes=routes, exception_handlers=EXCEPTION_HANDLERS))

    def token(self) -> str:
        user = contributor(self.engine)
        with Session(self.engine) as session:
            _row, plaintext = tokens.create_token(session, user, "ci")
            session.commit()
        return plaintext

    def batch(self, token: str, body: Any, key: str | None = None) -> Any:
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        if key is not None:
            headers["Idempotency-Key"] = key
        data = body if isinstance(body, str | bytes) else json.dumps(body)
        return self.client.post("/api/v1/tests/batch", content=data, headers=headers)

    def panel(self, token: str, body: str | bytes) -> Any:
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        return self.client.post("/api/v1/panel-imports", content=body, headers=headers)

    def tests(self) -> list[Test]:
        with Session(self.engine) as session:
            return list(session.exec(select(Test)).all())

    def count(self, model: type) -> int:
        with Session(self.engine) as session:
            return session.exec(select(func.count()).select_from(model)).one()


@pytest.fixture
def api(engine: Engine, settings: Settings, tmp_path: Path) -> Api:
    return Api(engine, settings.model_copy(update={"api_submission_rate_limit": 5}), tmp_path)


def _error(response: Any, status: int, code: str, field: str | None = None) -> None:
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code
    assert response.json()["error"]["field"] == field
    assert response.json()["error"]["message"]


def _stored_text(api: Api) -> str:
    """Every text column of every Test and queued job: where a refused setup could hide."""
    with Session(api.engine) as session:
        rows = [*session.exec(select(Test)).all(), *session.exec(select(Job)).all()]
    return "\n".join(json.dumps(row.model_dump(), default=str) for row in rows)


@BOTH
def test_a_key_in_one_output_refuses_that_setup_only(api: Api, job_ctx: JobContext) -> None:
    token = api.token()
    response = api.batch(token, three_setups(f"Works.\nMy key: {KEY}\n"))
    assert response.status_code == 202, response.text
    body = response.json()
    assert (body["created"], body["refused"]) == (2, 1)
    first, refused, third = body["setups"]
    assert [first["status"], third["status"]] == ["processing", "processing"]
    assert (refused["index"], refused["line"], refused["status"]) == (1, 2, "refused")
    assert refused["error"]["code"] == "secret_detected"
    assert refused["error"]["field"] == "output"
    assert refused["error"]["message"].startswith("Line 2 of the output")
    assert KEY not in response.text
    # Nothing of the refused setup is stored: no Test, no job, not its text anywhere.
    assert api.count(Test) == 2
    stored = _stored_text(api)
    assert KEY not in stored
    assert "GPT-5" not in stored
    assert "temperature 0" not in stored
    drain(replace(job_ctx, storage=api.storage))
    tests = {t.id: t for t in api.tests()}
    made = [tests[first["id"]], tests[third["id"]]]
    assert [t.state for t in made] == [TestState.PUBLIC, TestState.PUBLIC]
    assert {t.prompt for t in made} == {"Build a todo app in one HTML file."}
    assert len({t.prompt_key for t in made}) == 1  # one comparison group
    assert (made[0].attempts, made[0].model_version_label) == (2, "20250929")
    assert (made[0].gateway_call_id, made[1].gateway_call_id) == ("", "call_0003")
    with Session(api.engine) as session:  # what readers and the API see of it
        view = get_test_view(session, third["id"], None)
    assert view is not None
    assert view.gateway_call_id == "call_0003"


@BOTH
def test_one_key_covers_the_batch_and_a_replay_makes_nothing_twice(api: Api) -> None:
    token = api.token()
    body = three_setups(f"leaked {KEY}")
    first = api.batch(token, body, key="panel-run-7")
    again = api.batch(token, body, key="panel-run-7")
    assert first.status_code == again.status_code == 202
    assert first.json() == again.json()
    assert api.count(Test) == 2
    # Neither the replay nor the refused setup took from the budget (5): three still fit...
    fresh = api.batch(token, three_setups(), key="another-run")
    assert fresh.json()["created"] == 3
    # ...and a different batch under a used key is refused before anything is made.
    changed = {**three_setups(f"leaked {KEY}"), "notes": "changed"}
    _error(api.batch(token, changed, key="panel-run-7"), 409, "idempotency_key_reused")
    assert api.count(Test) == 5
    keys = [t.idempotency_key for t in api.tests()]
    assert len(set(keys)) == 5
    assert all(k and len(k) == 64 for k in keys)


@BOTH
def test_each_setup_counts_against_the_rate_and_the_rest_are_refused(api: Api) -> None:
    token = api.token()
    body = {**three_setups(), "setups": three_setups()["setups"] * 2}  # six setups, budget five
    response = api.batch(token, body)
    assert response.status_code == 202
    statuses = [s["status"] for s in response.json()["setups"]]
    assert statuses == ["processing"] * 5 + ["refused"]
    assert response.json()["setups"][5]["error"]["code"] == "rate_limited"
    spent = api.batch(token, three_setups())
    assert spent.status_code == 200  # nothing accepted
    assert {s["error"]["code"] for s in spent.json()["setups"]} == {"rate_limited"}
    assert api.count(Test) == 5
    # The single submission shares the same budget.
    single = api.client.post(
        "/api/v1/tests",
        data={"prompt": "p", "model": "m", "harness": "h", "reasoning": "r", "output": "o"},
        files=[("files", ("a.txt", b"text"))],
        headers={"Authorization": f"Bearer {token}"},
    )
    _error(single, 429, "rate_limited")


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        ("not json", "invalid_json", None),
        ("[1, 2]", "invalid_json", None),
        ("[" * 100_000 + "]" * 100_000, "invalid_json", None),
        ({"prompt": "p"}, "no_setups", "setups"),
        ({"prompt": "p", "setups": []}, "no_setups", "setups"),
        ({"prompt": "p", "setups": [{}] * 21}, "too_many_setups", "setups"),
        ({"prompt": "p", "setups": ["x"]}, "invalid_json", None),
        ({"prompt": "p", "model": "m", "setups": [{}]}, "unknown_field", "model"),
        ({"prompt": "p", "setups": [{"modle": "m"}]}, "unknown_field", "modle"),
        ({"prompt": "p", "setups": [{"model": ["m"]}]}, "invalid_field", "model"),
        ({"prompt": "", "setups": [_setup("m", "o")]}, "required", "prompt"),
        ({"prompt": f"use {KEY}", "setups": [_setup("m", "o")]}, "secret_detected", "prompt"),
        ({"prompt": "p\x00", "setups": [_setup("m", "o")]}, "field_control_chars", "prompt"),
    ],
)
def test_a_malformed_batch_is_refused_whole_and_stores_nothing(
    api: Api, body: Any, code: str, field: str | None
) -> None:
    _error(api.batch(api.token(), body), 400, code, field)
    assert api.count(Test) == 0


def test_hostile_setup_fields_refuse_only_their_setup(api: Api) -> None:
    hostile = [
        _setup("m\x00", "o"),
        _setup("m" * 5000, "o"),
        _setup("m", "o\ud800"),
        _setup("m", "o", gateway_call_id="<a href=x>call</a>"),
        _setup("m", "o", gateway_call_id=KEY),
        _setup("m", ""),
        _setup("<img src=x onerror=alert(1)>", "<script>alert(1)</script>"),
    ]
    response = api.batch(api.token(), {"prompt": "p", "setups": hostile})
    results = response.json()["setups"]
    assert [(r["status"], r.get("error", {}).get("field")) for r in results] == [
        ("refused", "model"),
        ("refused", "model"),
        ("refused", "output"),
        ("refused", "gateway_call_id"),
        ("refused", "gateway_call_id"),
        ("refused", "output"),
        ("processing", None),
    ]
    assert KEY not in response.text
    (test,) = api.tests()  # markup is text: stored as sent, escaped wherever it is shown
    assert test.model_label == "<img src=x onerror=alert(1)>"


def test_an_oversized_batch_is_refused_before_it_is_read(api: Api) -> None:
    token = api.token()
    headers = {
        "Authorization": f"Bearer {token}",
        "Content-Type": "application/json",
        "Content-Length": str(MAX_BATCH_BYTES + 1),
    }
    response = api.client.post("/api/v1/tests/batch", content=b"{}", headers=headers)
    _error(response, 413, "request_too_large")
    streamed = api.batch(token, {"prompt": "p", "setups": [_setup("m", "o" * MAX_BATCH_BYTES)]})
    _error(streamed, 413, "request_too_large")
    assert api.count(Test) == 0


def test_batch_needs_a_token_and_json(api: Api) -> None:
    _error(api.batch("bmx_nope", three_setups()), 401, "invalid_token")
    response = api.client.post(
        "/api/v1/tests/batch",
        data={"prompt": "p"},
        headers={"Authorization": f"Bearer {api.token()}"},
    )
    _error(response, 415, "unsupported_media_type")


# --- panel import -----------------------------------------------------------------------


@BOTH
def test_a_five_seat_reply_proposes_three_and_says_why_two_were_skipped(api: Api) -> None:
    response = api.panel(api.token(), reply_text())
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["panel"], body["collection"]) == ("frontier", "web-ui")
    assert [s["model"] for s in body["setups"]] == [
        "anthropic/claude-sonnet-4.5",
        "openai/gpt-5",
        "x-ai/grok-4",
    ]
    assert {s["harness"] for s in body["setups"]} == {"Benchwarmers web-ui"}
    assert [s["gateway_call_id"] for s in body["setups"]] == ["call_0001", "call_0002", "call_0005"]
    assert body["setups"][1]["output"] == ANSWERS["beta"]
    assert {s["reasoning"] for s in body["setups"]} == {""}
    skipped = {s["position"]: s for s in body["skipped"]}
    assert set(skipped) == {3, 4}
    assert skipped[3]["status"] == "error"
    assert "upstream timeout" in skipped[3]["reason"]
    assert skipped[4]["status"] == "empty"
    assert "empty" in skipped[4]["reason"]
    assert api.count(Test) == 0  # reading a reply stores nothing
    # The proposal, with a prompt and reasonings, is a batch as it stands.
    setups = [{**s, "reasoning": "high"} for s in body["setups"]]
    for proposed in setups:
        del proposed["position"], proposed["seat"], proposed["seconds"]
    made = api.batch(api.token(), {"prompt": "Build a todo app.", "setups": setups})
    assert made.json()["created"] == 3
    assert sorted(t.gateway_call_id for t in api.tests()) == ["call_0001", "call_0002", "call_0005"]


def test_one_line_of_the_calls_log_is_a_reply_too(api: Api) -> None:
    token = api.token()
    bench = reply(five_seats())["bench"]
    for line in ({"ts": "2026-12-02T08:00:00Z", "bench": bench}, {"ts": "x", **bench}):
        response = api.panel(token, json.dumps(line))
        assert len(response.json()["setups"]) == 3, response.text


@pytest.mark.parametrize(
    ("body", "code", "named"),
    [
        ("", "panel_reply_empty", "Paste or upload"),
        ("{not json", "panel_reply_not_json", "not valid JSON"),
        ("[" * 50_000 + "]" * 50_000, "panel_reply_not_json", "values a reply never has"),
        ('{"bench": {"collection": "c", "seats": [NaN]}}', "panel_reply_not_json", "never"),
        ('"just a string"', "panel_reply_no_bench", "not an object"),
        ('{"choices": []}', "panel_reply_no_bench", "no bench field"),
        ('{"bench": {"seats": []}}', "panel_reply_missing_collection", "bench.collection"),
        ('{"bench": {"collection": "c"}}', "panel_reply_missing_seats", "bench.seats"),
        ('{"bench": {"collection": "c", "seats": {}}}', "panel_reply_missing_seats", "not a list"),
        ('{"bench": {"collection": "c", "seats": []}}', "panel_reply_missing_seats", "empty"),
        ('{"bench": {"collection": "c\\u0000", "seats": [1]}}', "panel_reply_bad_collection",
         "single line"),
        ("\n".join([json.dumps(reply(five_seats()))] * 3), "panel_reply_several_lines",
         "3 lines"),
        (b"\xff\xfe{}", "panel_reply_not_json", "UTF-8"),
    ],
)  # fmt: skip
def test_what_is_not_a_panel_reply_is_named(
    api: Api, body: str | bytes, code: str, named: str
) -> None:
    response = api.panel(api.token(), body)
    _error(response, 400, code, "panel_reply")
    assert named in response.json()["error"]["message"]


def test_too_many_seats_and_an_oversized_reply_are_refused(api: Api) -> None:
    token = api.token()
    many = [seat(n, "m", answer="a") for n in range(21)]
    _error(api.panel(token, reply_text(many)), 400, "too_many_setups", "panel_reply")
    big = reply_text([seat(1, "m", answer="a" * MAX_REPLY_BYTES)])
    _error(api.panel(token, big), 413, "panel_reply_too_large", "panel_reply")


def test_hostile_seats_are_skipped_with_reasons_that_never_repeat_a_key(api: Api) -> None:
    seats = [
        seat(1, f"evil {KEY}", answer="fine"),
        seat(2, "m", answer=f"here you go: {KEY}"),
        seat(3, "m\x00\x1b[31m", answer="fine"),
        seat(4, "m" * 100_000, answer="fine"),
        seat(5, "m", answer="a\x00b"),
        seat(6, "m", answer="\ud800 half a pair"),
        {**seat(7, "m", answer="fine"), "call": "<a href='https://x'>call</a>"},
        seat(8, "m", status="error", error=f"upstream said {KEY}"),
        {**seat(9, "m", status="error"), "seat": "\x00" + "s" * 10_000},
        seat(10, "m", status="pending"),
        "not a seat",
        {**seat(12, "m", answer="fine"), "alias": None},
        {**seat(13, "m", answer="fine"), "seconds": 10**400},
        seat(14, "<b>bold</b> <script>x</script>", answer="<img src=x onerror=alert(1)>"),
    ]
    response = api.panel(api.token(), reply_text(seats))
    assert response.status_code == 200, response.text
    assert KEY not in response.text
    body = response.json()
    proposed = {s["position"]: s for s in body["setups"]}
    assert set(proposed) == {13, 14}
    assert proposed[13]["seconds"] is None
    assert proposed[14]["model"] == "<b>bold</b> <script>x</script>"  # text, escaped when shown
    assert proposed[14]["output"] == "<img src=x onerror=alert(1)>"
    reasons = {s["position"]: s["reason"] for s in body["skipped"]}
    assert "looks like" in reasons[1]
    assert "model name" in reasons[1]
    assert "looks like" in reasons[2]
    assert "output" in reasons[2]
    assert "single line" in reasons[3]
    assert "at most 200" in reasons[4]
    assert "control characters" in reasons[5]
    assert "broken characters" in reasons[6]
    assert "call id" in reasons[7]
    assert reasons[8] == "The gateway reported an error."
    assert "not one of ok, empty or error" in reasons[10]
    assert "not a JSON object" in reasons[11]
    assert "no alias" in reasons[12]
    shown = {s["position"]: s for s in body["skipped"]}
    assert len(shown[9]["seat"]) <= 80
    assert "\x00" not in shown[9]["seat"]
    assert shown[1]["alias"] == ""  # an alias holding a key is not repeated


def test_panel_import_needs_a_token(api: Api) -> None:
    _error(api.panel("bmx_nope", reply_text()), 401, "invalid_token")


def test_suspended_accounts_cannot_batch(api: Api) -> None:
    token = api.token()
    with Session(api.engine) as session:
        user = session.exec(select(User)).one()
        user.status = AccountStatus.SUSPENDED
        session.add(user)
        session.commit()
    _error(api.batch(token, three_setups()), 403, "account_suspended")


# --- without a token (the wizard) ---------------------------------------------------------


@BOTH
def test_a_batch_without_a_token_is_held_to_the_rate_counted_from_the_tests(
    api: Api, job_ctx: JobContext
) -> None:
    token = api.token()
    assert api.batch(token, three_setups()).json()["created"] == 3  # by the API, same account
    with Session(api.engine) as session:
        user_id = session.exec(select(User.id)).one()
    setups = [{"model_label": f"m{n}", "harness_label": "h", "reasoning_label": "r",
               "output_text": "o"} for n in range(4)]  # fmt: skip
    batch = Batch({"prompt": "p"}, setups)
    ctx = replace(job_ctx, storage=api.storage)
    slot = slot_by_tests(ctx, user_id, limit=5, window_seconds=600)
    outcomes = submit_batch(ctx, user_id, None, batch, SafetyLimits(), slot)
    assert [o.test_id != "" for o in outcomes] == [True, True, False, False]
    refusal = outcomes[2].refusal
    assert isinstance(refusal, RateLimited)
    assert refusal.retry_after is not None
    assert 1 <= refusal.retry_after <= 600
    assert api.count(Test) == 5
    # A setup refused for what it holds is refused as such, and takes nothing.
    leaky = Batch({"prompt": "p"}, [{**setups[0], "output_text": KEY}])
    (outcome,) = submit_batch(ctx, user_id, None, leaky, SafetyLimits(), slot)
    assert outcome.refusal is not None
    assert outcome.refusal.code == "secret_detected"


def test_both_routes_are_in_the_openapi_document(settings: Settings) -> None:
    routes = build_api(AppContext.from_settings(settings)).routes
    paths = build_document(routes, "http://localhost:3000")["paths"]
    batch = paths["/api/v1/tests/batch"]["post"]
    assert "Idempotency-Key" in [p["name"] for p in batch["parameters"]]
    assert set(batch["responses"]) >= {"202", "400", "401", "409", "413"}
    assert "application/json" in batch["requestBody"]["content"]
    panel = paths["/api/v1/panel-imports"]["post"]
    assert set(panel["responses"]) >= {"200", "400", "413"}
