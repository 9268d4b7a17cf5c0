"""An OpenAI-compatible chat-completions judge on the official ``openai`` package.

Configuration comes from our Settings only. The ``openai`` client also reads ``OPENAI_*``
environment variables (key, base URL, organisation, project, extra headers) whenever an
argument is left out, so every argument is passed, and a request hook on our own HTTP client
rebuilds each outgoing request's credentials: it refuses any URL outside the configured base
URL and sends exactly our judge key and no organisation, project or ambient headers. Nothing
in a process environment can redirect the judge or swap its key.

Every request that may have reached the endpoint is counted (``JudgeReply.sent``,
``JudgeClientError.sent``) by a wrapper around the HTTP transport, because the provider may
bill it whatever comes back: an error status, a body cut short, a connection reset after the
request went out. Only a connection that was never made (refused, or timed out while
connecting) sends nothing and counts 0. The client's own retries are off unless
``judge_max_retries`` asks for them; each one is counted like a first try, and the review
reserves budget for all of them before the first is sent.

A reply is either a plain completion (one answer) or a *panel* reply from a gateway whose
model name is a collection: every seat's answer sits in ``bench.seats[]`` beside
``choices``, and each seat that answered is one answer here.

Errors surface as ``JudgeClientError`` with a content-free code; the request body (evidence)
and the key never reach a log: the ``openai`` and ``httpx2`` loggers are held at WARNING,
whatever ``OPENAI_LOG`` says, because at DEBUG they print request options.
"""

from __future__ import annotations

import logging
import re
import time
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import httpx2
import openai

from benchmax.settings import Settings

# Headers our requests may carry; everything else the SDK or the environment adds is dropped.
_KEPT_HEADERS = frozenset(
    {"accept", "content-type", "content-length", "host", "user-agent", "accept-encoding"}
)
_QUIET_LOGGERS = ("openai", "httpx2", "httpx", "httpcore")
_STATUS_WORD = re.compile(r"[a-z_]{0,20}")
# Labels from the endpoint are kept this long here; the service removes credentials from them
# and only then cuts them to what it stores (200), so no cut leaves half a key behind.
_TEXT_CAP = 2000


@dataclass(frozen=True)
class JudgeCall:
    """One chat-completions request: strict JSON output, a seed and temperature 0."""

    model: str
    messages: list[dict[str, Any]]
    schema_name: str
    schema: dict[str, Any]
    seed: int
    temperature: float
    max_output_tokens: int


@dataclass(frozen=True)
class JudgeAnswer:
    """One answer: the plain completion, or one panel seat. ``content`` None when it failed."""

    content: str | None
    seat: str = ""
    error_code: str = ""
    reported_model: str = ""
    system_fingerprint: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@dataclass(frozen=True)
class JudgeReply:
    """``sent``: HTTP requests that may have reached the endpoint for this answer (the client's
    own retries included), each one possibly billed."""

    answers: list[JudgeAnswer]
    latency_ms: int
    reported_model: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    sent: int = 1


class JudgeClientError(Exception):
    """The endpoint failed (timeout, 5xx, unreachable, unreadable reply); ``code`` says how.
    ``sent``: how many requests may have reached it anyway (0 only when none left)."""

    def __init__(self, code: str, latency_ms: int = 0, sent: int = 0) -> None:
        super().__init__(code)
        self.code = code[:64]
        self.latency_ms = latency_ms
        self.sent = sent


# The requests of the call in progress on this thread that may have reached the endpoint.
_SENT: ContextVar[list[int] | None] = ContextVar("judge_requests_sent", default=None)
# Failures that prove nothing was sent: no connection was ever made.
_NEVER_SENT = (httpx2.ConnectError, httpx2.ConnectTimeout, httpx2.PoolTimeout)


class _CountingTransport(httpx2.BaseTransport):
    """Counts every request handed to the network unless its connection was never made."""

    def __init__(self, inner: httpx2.BaseTransport) -> None:
        self._inner = inner

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        counter = _SENT.get()
        try:
            response = self._inner.handle_request(request)
        except _NEVER_SENT:
            raise
        except BaseException:
            if counter is not None:
                counter[0] += 1
            raise
        if counter is not None:
            counter[0] += 1
        return response

    def close(self) -> None:
        self._inner.close()


class JudgePort(Protocol):
    def complete(self, call: JudgeCall) -> JudgeReply: ...


def _quiet_sdk_loggers() -> None:
    for name in _QUIET_LOGGERS:
        logger = logging.getLogger(name)
        if logger.getEffectiveLevel() < logging.WARNING or logger.level < logging.WARNING:
            logger.setLevel(logging.WARNING)


def _usage(raw: Any) -> tuple[int | None, int | None]:
    if not isinstance(raw, dict):
        return None, None
    prompt, completion = raw.get("prompt_tokens"), raw.get("completion_tokens")
    return (
        prompt if isinstance(prompt, int) and not isinstance(prompt, bool) else None,
        completion if isinstance(completion, int) and not isinstance(completion, bool) else None,
    )


def _seat_answer(seat: Any) -> JudgeAnswer:
    """One ``bench.seats[]`` entry: ``call``, ``alias``, ``status``, ``answer``.

    The status becomes part of an error code, so only a short word of letters is kept: a
    gateway's free text never lands in a code (codes are not redacted, they are closed)."""
    if not isinstance(seat, dict):
        return JudgeAnswer(content=None, error_code="panel_seat_malformed")
    alias = str(seat.get("alias") or seat.get("call") or "")[:_TEXT_CAP]
    status = str(seat.get("status", "")).lower()
    status = status if _STATUS_WORD.fullmatch(status) else "other"
    answer = seat.get("answer")
    if isinstance(answer, dict):
        answer = answer.get("content")
    prompt, completion = _usage(seat.get("usage"))
    if status not in ("ok", "answered", "success", "done") or not isinstance(answer, str):
        code = f"panel_seat_{status or 'unanswered'}"[:64]
        return JudgeAnswer(content=None, seat=alias, error_code=code)
    return JudgeAnswer(
        content=answer,
        seat=alias,
        reported_model=str(seat.get("model") or alias)[:_TEXT_CAP],
        system_fingerprint=str(seat.get("system_fingerprint") or "")[:_TEXT_CAP],
        prompt_tokens=prompt,
        completion_tokens=completion,
    )


def parse_completion(data: dict[str, Any], latency_ms: int) -> JudgeReply:
    """The answers in a chat-completions body, panel seats included."""
    model = str(data.get("model") or "")[:_TEXT_CAP]
    fingerprint = str(data.get("system_fingerprint") or "")[:_TEXT_CAP]
    bench = data.get("bench")
    seats = bench.get("seats") if isinstance(bench, dict) else None
    if isinstance(seats, list) and seats:
        return JudgeReply([_seat_answer(seat) for seat in seats], latency_ms, model)
    choices = data.get("choices")
    message = choices[0].get("message") if isinstance(choices, list) and choices else None
    prompt, completion = _usage(data.get("usage"))
    content: str | None = None
    code = ""
    if not isinstance(message, dict):
        code = "reply_without_message"
    elif message.get("refusal"):
        code = "refused"
    elif not isinstance(message.get("content"), str):
        code = "reply_empty"
    else:
        content = message["content"]
    answer = JudgeAnswer(
        content=content,
        error_code=code,
        reported_model=model,
        system_fingerprint=fingerprint,
        prompt_tokens=prompt,
        completion_tokens=completion,
    )
    return JudgeReply([answer], latency_ms, model)


def _strict_schema(call: JudgeCall) -> Any:
    return {
        "type": "json_schema",
        "json_schema": {"name": call.schema_name, "strict": True, "schema": call.schema},
    }


class OpenAICompatibleJudge:
    """``JudgePort`` over any OpenAI-compatible endpoint; one instance per process is enough."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str,
        timeout_seconds: float,
        connect_timeout_seconds: float,
        max_retries: int,
    ) -> None:
        if not base_url.strip():
            raise ValueError("a judge base URL is required")
        _quiet_sdk_loggers()
        self._base_url = base_url.rstrip("/") + "/"
        self._api_key = api_key
        timeout = httpx2.Timeout(timeout_seconds, connect=connect_timeout_seconds)
        self._http = httpx2.Client(
            timeout=timeout,
            follow_redirects=False,
            event_hooks={"request": [self._pin]},
            transport=_CountingTransport(httpx2.HTTPTransport()),
        )
        self._client = openai.OpenAI(
            api_key=api_key or "unset",
            admin_api_key="",
            organization="",
            project="",
            webhook_secret="",
            base_url=self._base_url,
            timeout=timeout,
            max_retries=max_retries,
            default_headers={"Authorization": f"Bearer {api_key}"},
            http_client=self._http,
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> OpenAICompatibleJudge:
        key = settings.judge_api_key.get_secret_value() if settings.judge_api_key else ""
        return cls(
            base_url=settings.judge_base_url,
            api_key=key,
            timeout_seconds=settings.judge_timeout_seconds,
            connect_timeout_seconds=settings.judge_connect_timeout_seconds,
            max_retries=settings.judge_max_retries,
        )

    def _pin(self, request: httpx2.Request) -> None:
        """Refuse foreign URLs; send only our key and the headers a JSON POST needs."""
        if not str(request.url).startswith(self._base_url):
            raise JudgeClientError("judge_url_outside_base")
        kept = {
            name: value for name, value in request.headers.items() if name.lower() in _KEPT_HEADERS
        }
        request.headers.clear()
        request.headers.update(kept)
        if self._api_key:
            request.headers["Authorization"] = f"Bearer {self._api_key}"

    def complete(self, call: JudgeCall) -> JudgeReply:
        counter = [0]
        token = _SENT.set(counter)
        try:
            reply = self._complete(call)
        except JudgeClientError as exc:
            exc.sent = counter[0]
            raise
        finally:
            _SENT.reset(token)
        return replace(reply, sent=max(1, counter[0]))

    def _complete(self, call: JudgeCall) -> JudgeReply:
        started = time.monotonic()

        def elapsed() -> int:
            return int((time.monotonic() - started) * 1000)

        try:
            # Messages are built as plain dicts; the SDK's TypedDicts describe the same shape.
            completion = self._client.chat.completions.create(  # type: ignore[call-overload]
                model=call.model,
                messages=call.messages,
                temperature=call.temperature,
                seed=call.seed,
                max_tokens=call.max_output_tokens,
                response_format={
                    "type": "json_schema",
                    "json_schema": {
                        "name": call.schema_name,
                        "strict": True,
                        "schema": call.schema,
                    },
                },
            )
            # Extra fields (a panel's ``bench``) are kept by the SDK's models.
            data = completion.model_dump(mode="json")
        except JudgeClientError:
            raise
        except openai.APITimeoutError as exc:
            raise JudgeClientError("judge_timeout", elapsed()) from exc
        except openai.APIStatusError as exc:
            raise JudgeClientError(f"judge_http_{exc.status_code}", elapsed()) from exc
        except openai.APIConnectionError as exc:
            cause = exc.__cause__
            code = (
                "judge_url_outside_base"
                if isinstance(cause, JudgeClientError)
                else "judge_unreachable"
            )
            raise JudgeClientError(code, elapsed()) from exc
        except ValueError as exc:  # the body was not JSON
            raise JudgeClientError("judge_reply_not_json", elapsed()) from exc
        if not isinstance(data, dict):
            raise JudgeClientError("judge_reply_not_object", elapsed())
        return parse_completion(data, elapsed())

    def close(self) -> None:
        self._client.close()


def build_judge(settings: Settings) -> OpenAICompatibleJudge | None:
    """The configured judge, or None while ``BENCHMAX_JUDGE_BASE_URL`` is empty."""
    if not settings.judge_enabled:
        return None
    return OpenAICompatibleJudge.from_settings(settings)
