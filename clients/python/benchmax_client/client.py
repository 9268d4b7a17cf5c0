"""The Python API: ``Client(url, token)`` and what a harness does with it.

Every request goes through ``_send``, the one place that knows how the server says "wait":
any answer with ``Retry-After`` (429, 503…) is waited out and sent again while the caller's
patience (``max_wait``) lasts, and reported as ``RateLimited`` when it does not. Connection
failures and a gateway's 502/503/504 are retried a few times, which is safe because reads
change nothing and a submission carries its Idempotency-Key. Nothing sent is logged, here
or by the HTTP client (whose own log line names only the method and URL, never a header or
body).
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any
from urllib.parse import quote

import httpx

from benchmax_client.config import load_settings
from benchmax_client.errors import ApiError, AuthError, MissingToken, RateLimited, Unreachable
from benchmax_client.submission import Progress, Submission, opened_files

__all__ = ["Accepted", "Client", "Status", "parse_test_id"]

API = "/api/v1"
# The states a Test rests in; anything else (processing) is still moving.
SETTLED = frozenset({"public", "needs_attention", "failed", "removed", "draft"})
_CONNECT_TRIES = 3
# Answers that say "not now" rather than "no": a gateway or a restarting server.
_PASSING = frozenset({502, 503, 504})
_HOW_TO_AUTHENTICATE = (
    "No API token. Set BENCHMAX_TOKEN, or put token = bmx_... under [benchmax] in the config "
    "file (benchmax-client config shows where). Create a token on /me."
)


@dataclass(frozen=True)
class Accepted:
    """The server took the submission: the Test exists and is being checked."""

    id: str
    status: str
    status_url: str


@dataclass(frozen=True)
class Status:
    """Where one of your Tests stands (``GET /api/v1/tests/{id}/status``)."""

    test_id: str
    state: str
    plain_status: str
    reason: str
    public_url: str | None
    files: list[dict[str, Any]] = field(default_factory=list)

    @property
    def settled(self) -> bool:
        return self.state in SETTLED

    @property
    def is_public(self) -> bool:
        return self.state == "public"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.test_id,
            "state": self.state,
            "plain_status": self.plain_status,
            "reason": self.reason,
            "public_url": self.public_url,
            "files": self.files,
        }


class Client:
    """A BenchMax server at ``url``; ``token`` (``bmx_...``) is needed only to submit and to
    read your own Tests' status. ``max_wait`` bounds how long one call waits out the server's
    ``Retry-After`` in total before giving up with ``RateLimited``."""

    def __init__(
        self,
        url: str,
        token: str | None = None,
        *,
        timeout: float = 60.0,
        max_wait: float = 120.0,
        sleep: Callable[[float], None] = time.sleep,
        user_agent: str = "benchmax-client",
    ) -> None:
        self.url = url.rstrip("/")
        self._token = token
        self._max_wait = max_wait
        self._sleep = sleep
        self._http = httpx.Client(
            base_url=self.url,
            timeout=httpx.Timeout(timeout, connect=10.0),
            # http→https and trailing-slash redirects; httpx drops the token on another host.
            follow_redirects=True,
            headers={"User-Agent": user_agent, "Accept": "application/json"},
        )

    @classmethod
    def from_config(cls, url: str | None = None, **options: Any) -> Client:
        """The site and token as the command finds them: ``BENCHMAX_URL`` / ``BENCHMAX_TOKEN``,
        else the config file (``benchmax_client.config``), else the local default site."""
        settings = load_settings(url)
        return cls(settings.url, settings.token, **options)

    def __repr__(self) -> str:
        return f"Client({self.url!r}, token={'set' if self._token else None})"

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    # Reads: public, no token needed.

    def search(
        self,
        q: str = "",
        *,
        limit: int | None = None,
        cursor: str | None = None,
        **filters: str,
    ) -> dict[str, Any]:
        """A page of public Tests, newest first or by relevance with ``q``. Filters as on the
        feed: family, model, harness, reasoning, contributor, status, compare, sort."""
        params = {"q": q, **filters, "cursor": cursor or "", "limit": limit or ""}
        return self._json("GET", f"{API}/tests", params=_present(params))

    def test(self, test_id: str) -> dict[str, Any]:
        """One public Test: prompt, declared setup, output, evidence links, reviews. Its id, or
        a link to its page (``https://…/tests/ID``)."""
        return self._json("GET", f"{API}/tests/{_segment(parse_test_id(test_id))}")

    def group(self, key: str) -> dict[str, Any]:
        """The comparison group of a prompt: every public Test given the same prompt (the
        key is a Test's ``prompt_key``)."""
        return self._json("GET", f"{API}/prompts/{_segment(key)}")

    def leaderboard(
        self,
        snapshot_id: str | None = None,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        **filters: str,
    ) -> dict[str, Any]:
        """The current showcase board, or a sealed snapshot's. Filters: family, model,
        harness, reasoning, single (``"1"``: single-attempt results only)."""
        path = f"{API}/leaderboard"
        if snapshot_id:
            path += f"/snapshots/{_segment(snapshot_id)}"
        params = {**filters, "cursor": cursor or "", "limit": limit or ""}
        return self._json("GET", path, params=_present(params))

    def page_url(self, relative: str) -> str:
        """A page of the site as an absolute URL (the API answers paths like ``/tests/ID``)."""
        return relative if "://" in relative else f"{self.url}{relative}"

    # Your own Tests: a token is needed.

    def submit(
        self,
        submission: Submission,
        *,
        idempotency_key: str | None = None,
        progress: Progress | None = None,
    ) -> Accepted:
        """Send the Test with its files in one request. Without ``idempotency_key`` one is
        derived from the content, so submitting the same thing twice gives the same Test."""
        headers = self._auth()
        paths = submission.checked_files()
        headers["Idempotency-Key"] = idempotency_key or submission.idempotency_key()
        # Text fields go as parts without a file name, so the body is multipart even with no
        # file (the API takes nothing else).
        fields = [(name, (None, value.encode())) for name, value in submission.fields().items()]
        with opened_files(paths, progress) as files:
            body = self._json("POST", f"{API}/tests", headers=headers, files=[*fields, *files])
        return Accepted(body["id"], body["status"], body["status_url"])

    def status(self, test_id: str) -> Status:
        path = f"{API}/tests/{_segment(parse_test_id(test_id))}/status"
        body = self._json("GET", path, headers=self._auth())
        public = body.get("public_url")
        return Status(
            test_id=body["test_id"],
            state=body["state"],
            plain_status=body["plain_status"],
            reason=body.get("reason") or "",
            public_url=self.page_url(public) if public else None,
            files=list(body.get("files") or []),
        )

    def follow(
        self,
        test: str | Accepted,
        *,
        timeout: float = 300.0,
        on_change: Callable[[Status], None] | None = None,
    ) -> Status:
        """Poll the status of ``test`` (an id, or what ``submit`` returned) until it is public
        or needs attention (or ``timeout`` seconds pass: then the last status, still
        processing, is returned)."""
        test_id = test.id if isinstance(test, Accepted) else test
        deadline = time.monotonic() + timeout
        interval = 0.25
        last: Status | None = None
        while True:
            current = self.status(test_id)
            if on_change is not None and current != last:
                on_change(current)
            last = current
            if current.settled or time.monotonic() >= deadline:
                return current
            self._sleep(min(interval, max(0.0, deadline - time.monotonic())))
            interval = min(interval * 2, 5.0)

    # The one way requests are sent.

    def _auth(self) -> dict[str, str]:
        if not self._token:
            raise MissingToken(_HOW_TO_AUTHENTICATE)
        return {"Authorization": f"Bearer {self._token}"}

    def _json(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        response = self._send(method, path, **kwargs)
        try:
            body = response.json()
        except ValueError:
            raise Unreachable(
                f"{method} {path} answered {response.status_code} without JSON; is "
                f"{self.url} a BenchMax server?"
            ) from None
        if not isinstance(body, dict):
            raise Unreachable(f"{method} {path} answered JSON that is not an object.")
        return body

    def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        waited = 0.0
        failures = 0
        while True:
            try:
                response = self._http.request(method, path, **kwargs)
            except httpx.TransportError as error:
                failures += 1
                if failures >= _CONNECT_TRIES:
                    raise Unreachable(
                        f"Cannot reach {self.url} ({error.__class__.__name__}). Is the server "
                        "running, and is the URL right?"
                    ) from None
                self._sleep(0.5 * failures)
                continue
            if response.is_success:
                return response
            refusal = _api_error(response)
            if refusal.retry_after is None:
                if response.status_code in _PASSING and failures + 1 < _CONNECT_TRIES:
                    failures += 1  # a proxy between deploys: like a dropped connection
                    self._sleep(0.5 * failures)
                    continue
                raise refusal
            # At least a second each time, so "Retry-After: 0" forever cannot spin the loop.
            wait = max(refusal.retry_after, 1.0)
            if waited + wait > self._max_wait:
                raise RateLimited(
                    refusal.status, refusal.code, refusal.message, refusal.field, wait
                )
            self._sleep(wait)
            waited += wait


def _api_error(response: httpx.Response) -> ApiError:
    retry_after = _retry_after(response.headers)
    try:
        detail = response.json()["error"]
        code, message, field_name = detail["code"], detail["message"], detail.get("field")
    except (ValueError, KeyError, TypeError):
        code = "http_error"
        message = f"The server answered {response.status_code} {response.reason_phrase}."
        field_name = None
    kind = AuthError if response.status_code in (401, 403) else ApiError
    return kind(response.status_code, code, message, field_name, retry_after)


def _retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds from ``Retry-After``: a number, or an HTTP date (never negative)."""
    raw = headers.get("retry-after")
    if raw is None:
        return None
    raw = raw.strip()
    if raw.isdigit():
        return float(raw)
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


def parse_test_id(value: str) -> str:
    """A Test's id from the id itself or a link to its page, as people and agents paste them."""
    value = value.strip()
    if "/tests/" not in value:
        return value
    after = value.rsplit("/tests/", 1)[1]
    return after.split("?", 1)[0].split("#", 1)[0].split("/", 1)[0]


def _segment(value: str) -> str:
    """A path segment as sent: an id with a slash or ``..`` cannot reach another route (the
    HTTP client would resolve a bare ``..``, so dots are escaped too)."""
    return quote(value, safe="").replace(".", "%2E")


def _present(params: Mapping[str, object]) -> dict[str, str]:
    return {name: str(value) for name, value in params.items() if value not in ("", None)}
