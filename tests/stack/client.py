"""Talking to a running stack the way contributors and operators do: HTTP, the CLI, SQL counts."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable
from typing import Any

import httpx
from sqlalchemy import create_engine, text

from benchmax.stack.sample import SAMPLE_FORM, sample_png
from benchmax.stack.topology import Stack

DONE_STATES = ("public", "needs_attention", "failed")


class StackClient:
    """One contributor with a token, and SQL counts on the stack's database."""

    def __init__(self, stack: Stack, handle: str) -> None:
        self.stack = stack
        self.token = stack.create_token(handle)
        self.http = httpx.Client(timeout=30, headers={"Authorization": f"Bearer {self.token}"})
        self.engine = create_engine(stack.config.database_url)

    def url(self, port: int, path: str) -> str:
        return f"http://127.0.0.1:{port}{path}"

    def submit(self, port: int, title: str, key: str | None = None) -> httpx.Response:
        headers = {"Idempotency-Key": key or uuid.uuid4().hex}
        return self.http.post(
            self.url(port, "/api/v1/tests"),
            data={**SAMPLE_FORM, "title": title},
            files=[("files", ("shot.png", sample_png(), "image/png"))],
            headers=headers,
        )

    def submit_until_accepted(self, port: int, title: str, deadline: float) -> str:
        """Submit, retrying with the same key through errors, as a careful client does."""
        key = uuid.uuid4().hex
        while True:
            try:
                response = self.submit(port, title, key)
                if response.status_code in (200, 201, 202):
                    return str(response.json()["id"])
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"{title} was never accepted")
            time.sleep(0.3)

    def status(self, port: int, test_id: str) -> dict[str, Any]:
        response = self.http.get(self.url(port, f"/api/v1/tests/{test_id}/status"))
        response.raise_for_status()
        return dict(response.json())

    def wait_done(self, port: int, test_ids: Iterable[str], timeout: float) -> dict[str, str]:
        """Each Test's final state, read through ``port``; fails if any is still in flight."""
        pending, states = set(test_ids), {}
        deadline = time.monotonic() + timeout
        while pending and time.monotonic() < deadline:
            for test_id in list(pending):
                try:
                    state = self.status(port, test_id)["state"]
                except httpx.HTTPError:
                    continue
                if state in DONE_STATES:
                    states[test_id] = state
                    pending.discard(test_id)
            time.sleep(0.5)
        assert not pending, f"{len(pending)} Tests still in flight after {timeout:.0f}s"
        return states

    def scalar(self, sql: str, **params: Any) -> Any:
        with self.engine.connect() as conn:
            return conn.execute(text(sql), params).scalar_one()

    def rows(self, sql: str, **params: Any) -> list[Any]:
        with self.engine.connect() as conn:
            return list(conn.execute(text(sql), params).all())

    def assert_exactly_once(self, titles: list[str]) -> None:
        """One Test per title, one file per Test, one job per (kind, subject) — nothing doubled."""
        rows = self.rows(
            "SELECT t.title, count(DISTINCT t.id), count(f.id) FROM test t "
            "LEFT JOIN evidence_file f ON f.test_id = t.id WHERE t.title = ANY(:titles) "
            "GROUP BY t.title",
            titles=titles,
        )
        assert sorted(r[0] for r in rows) == sorted(titles)
        assert all(r[1] == 1 and r[2] == 1 for r in rows), rows
        doubled = self.rows(
            "SELECT kind, subject_id, count(*) FROM job GROUP BY kind, subject_id "
            "HAVING count(*) > 1"
        )
        assert doubled == []

    def close(self) -> None:
        self.http.close()
        self.engine.dispose()
