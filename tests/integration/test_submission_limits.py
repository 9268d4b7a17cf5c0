"""The submission limit counts Tests, not mistakes; parallel submissions of one account queue
on its lock on both engines; the RateLimit headers say where an account stands."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine, func
from sqlmodel import Session, select
from starlette.testclient import TestClient

from benchmax.api import build_api
from benchmax.context import AppContext
from benchmax.models import ApiTokenUse, Test
from benchmax.services import tokens
from benchmax.settings import Settings
from tests.support.live_api import serve_api
from tests.support.submission_helpers import contributor
from tests.unit.safety.corpus import png_bytes

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
FORM = {
    "prompt": "Build a todo app.",
    "model": "Claude Sonnet 4.5",
    "harness": "Claude Code",
    "reasoning": "high",
    "output": "It works.",
}
PARALLEL = 20


def _token(engine: Engine) -> str:
    user = contributor(engine)
    with Session(engine) as session:
        _row, plaintext = tokens.create_token(session, user, "harness")
        session.commit()
    return plaintext


def _tests(engine: Engine) -> int:
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(Test)).one()


def _limits(headers: Any) -> dict[str, dict[str, int]]:
    """``RateLimit: "name";r=1;t=2, ...`` as {name: {r: 1, t: 2}}."""
    parsed = {}
    for item in headers["RateLimit"].split(","):
        name, *params = item.strip().split(";")
        parsed[name.strip('"')] = {k: int(v) for k, v in (p.split("=") for p in params)}
    return parsed


@BOTH
def test_parallel_submissions_of_one_account_each_create_one_test(
    settings: Settings, engine: Engine
) -> None:
    """Twenty submissions at once from one token, each sent twice with its Idempotency-Key:
    no 5xx (PostgreSQL used to answer "deadlock detected"), twenty Tests, each once."""
    quick = settings.model_copy(update={"api_submission_rate_limit": 100})
    token = _token(engine)
    ctx = AppContext.from_settings(quick, engine=engine)

    async def send(client: httpx.AsyncClient, n: int) -> httpx.Response:
        return await client.post(
            "/api/v1/tests",
            data={**FORM, "title": f"Run {n}"},
            files=[("files", (f"shot{n}.png", png_bytes(), "image/png"))],
            headers={"Authorization": f"Bearer {token}", "Idempotency-Key": f"run-{n}"},
        )

    async def burst(base: str) -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=base, timeout=60) as client:
            return await asyncio.gather(*(send(client, n % PARALLEL) for n in range(2 * PARALLEL)))

    with serve_api(ctx) as base:
        answers = asyncio.run(burst(base))

    assert [a.status_code for a in answers] == [202] * (2 * PARALLEL), [
        a.text for a in answers if a.status_code != 202
    ]
    ids = [a.json()["id"] for a in answers]
    assert ids[:PARALLEL] == ids[PARALLEL:]  # a key's two requests answer with one Test
    assert len(set(ids)) == PARALLEL
    assert _tests(engine) == PARALLEL
    with Session(engine) as session:  # each Test counted once against the limit
        assert session.exec(select(func.count()).select_from(ApiTokenUse)).one() == PARALLEL


@BOTH
def test_refused_submissions_do_not_use_up_the_limit(
    settings: Settings, engine: Engine, tmp_path: Path
) -> None:
    quick = settings.model_copy(
        update={"api_submission_rate_limit": 2, "api_refusal_rate_limit": 6}
    )
    token = _token(engine)
    auth = {"Authorization": f"Bearer {token}"}
    with TestClient(build_api(AppContext.from_settings(quick, engine=engine))) as client:

        def post(headers: dict[str, str] | None = None, **kwargs: Any) -> Any:
            if "data" in kwargs:  # multipart, as the API expects
                kwargs["files"] = [("files", ("shot.png", png_bytes(), "image/png"))]
            return client.post("/api/v1/tests", headers={**auth, **(headers or {})}, **kwargs)

        refused = [
            post(data={**FORM, "colour": "red"}),  # 400: unknown field
            post(data={**FORM, "prompt": ""}),  # 400: a required field is empty
            post(content=b'{"prompt": "x"}', headers={"Content-Type": "application/json"}),
            post(data={**FORM, "attempts": "many"}),  # 400: not a whole number
        ]
        assert [r.status_code for r in refused] == [400, 400, 415, 400]
        assert _limits(refused[-1].headers)["refusals"] == {"r": 2, "t": 600}
        assert "q=6;w=600" in refused[-1].headers["RateLimit-Policy"]

        first = post(data=FORM)
        assert first.status_code == 202, first.text
        assert _limits(first.headers)["submissions"]["r"] == 1
        assert post(data=FORM).status_code == 202
        limited = post(data=FORM)
        assert limited.status_code == 429
        assert limited.json()["error"]["code"] == "rate_limited"
        assert 1 <= int(limited.headers["Retry-After"]) <= 600
        assert _limits(limited.headers)["submissions"]["r"] == 0
        assert _tests(engine) == 2

        # Refusals have their own limit: a client looping on a bad request is slowed too.
        not_multipart: dict[str, Any] = {
            "content": b"{}",
            "headers": {"Content-Type": "application/json"},
        }
        assert [post(**not_multipart).status_code for _ in range(2)] == [415, 415]
        looping = post(**not_multipart)
        assert looping.status_code == 429
        assert "refused" in looping.json()["error"]["message"]
        assert int(looping.headers["Retry-After"]) >= 1
