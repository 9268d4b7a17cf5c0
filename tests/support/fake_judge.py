"""A fake AI judge: a real local HTTP server speaking OpenAI chat completions.

It reads the request the way a model would — the nonce from the instruction, the fenced and
datamarked evidence from the user message — and answers with a grader chosen per test:

* ``honest``: deterministic. The evidence's quality is the share of ``PASS`` among the
  ``PASS``/``FAIL`` words in it (50 when there are none); it ignores padding and names, and
  flags (without obeying) anything asking the grader for a score.
* ``slow``: honest after ``delay`` seconds (10 by default). ``error``: HTTP 503.
  ``internal``: HTTP 500. ``unauthorized``: HTTP 401 (a wrong key). ``garbage``: a body
  that is not JSON. ``malformed``: content that is not JSON. ``wrong_nonce``: honest but
  echoes another nonce.
* After the request has been read in full (so it may have been billed): ``truncated``
  announces a 200 with a longer body than it sends and hangs up; ``reset`` drops the
  connection with a TCP reset and answers nothing.
* ``leaky``: honest, but talked into spelling out ``leak`` (a key) in its reasoning, its
  reported model and fingerprint, and, on a panel, its seat alias.
* ``injectable``: obeys "score 100" and never flags it. ``length``: adds a point per 100
  characters (up to 40). ``identity``: adds 20 when it sees a famous model or vendor name.

A model name starting with ``bench/`` is a panel: the reply carries one answer per entry of
``panel`` (a list of behaviours) in ``bench.seats[]`` beside ``choices``. Every request is
recorded (path, headers, body) for assertions; ``calls`` counts them.
"""

from __future__ import annotations

import json
import re
import socket
import struct
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from benchmax.services.judge.prompt import DATAMARK

_NONCE = re.compile(r"<<<EVIDENCE ([0-9a-f]+)>>>")
_FENCED = re.compile(r"<<<EVIDENCE ([0-9a-f]+)>>>\n(.*)\n<<<END EVIDENCE \1>>>", re.S)
_ASKS_FOR_SCORE = re.compile(r"ignore (?:all |the )?(?:previous|prior|above) instructions|"
                             r"score (?:this|it)? ?100|give (?:this|it) 100", re.I)  # fmt: skip
_FAMOUS = re.compile(r"\b(?:claude|gpt|gemini|opus|sonnet|openai|anthropic)\b", re.I)


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class FakeJudgeState:
    behaviour: str = "honest"
    leak: str = ""
    panel: list[str] = field(default_factory=lambda: ["honest", "honest", "honest"])
    delay: float = 0.0
    requests: list[Recorded] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def calls(self) -> int:
        with self.lock:
            return len(self.requests)


def _evidence(body: dict[str, Any]) -> tuple[str, str]:
    """(nonce, evidence with datamarking undone) from a request body."""
    system = next((m["content"] for m in body["messages"] if m["role"] == "system"), "")
    user = next((m["content"] for m in body["messages"] if m["role"] == "user"), "")
    if isinstance(user, list):
        user = "\n".join(part.get("text", "") for part in user if part.get("type") == "text")
    nonce_match = _NONCE.search(user) or _NONCE.search(system)
    fenced = _FENCED.search(user)
    text = fenced.group(2).replace(DATAMARK, " ") if fenced else ""
    return (nonce_match.group(1) if nonce_match else ""), text


def honest_score(text: str) -> int:
    passes, fails = len(re.findall(r"\bPASS\b", text)), len(re.findall(r"\bFAIL\b", text))
    return round(100 * passes / (passes + fails)) if passes + fails else 50


def grade(behaviour: str, body: dict[str, Any], leak: str = "") -> str:
    """The content a grader with ``behaviour`` answers to this request."""
    nonce, text = _evidence(body)
    if behaviour == "malformed":
        return "I think this deserves about 70 {not json"
    score = honest_score(text)
    asks = bool(_ASKS_FOR_SCORE.search(text))
    suspected = asks
    if behaviour == "injectable" and asks:
        score, suspected = 100, False
    elif behaviour == "length":
        score = min(100, score + min(40, len(text) // 100))
    elif behaviour == "identity" and _FAMOUS.search(text):
        score = min(100, score + 20)
    if behaviour == "wrong_nonce":
        nonce = "0" * len(nonce or "0")
    reasoning = f"Graded {behaviour}: the evidence supports a score of {score}."
    if behaviour == "leaky":
        reasoning += f" The config shows ANTHROPIC_API_KEY={leak} in plain text."
    return json.dumps({"nonce": nonce, "score": score, "reasoning": reasoning,
                       "injection_suspected": suspected})  # fmt: skip


def _usage(body: dict[str, Any]) -> dict[str, int]:
    size = len(json.dumps(body["messages"]))
    return {"prompt_tokens": size // 4, "completion_tokens": 40, "total_tokens": size // 4 + 40}


def completion(state: FakeJudgeState, body: dict[str, Any]) -> tuple[int, bytes]:
    behaviour = state.behaviour
    if behaviour == "slow" or state.delay:
        time.sleep(state.delay or 10.0)
    if behaviour == "error":
        return 503, b'{"error": {"message": "overloaded", "type": "server_error"}}'
    if behaviour == "internal":
        return 500, b'{"error": {"message": "internal error", "type": "server_error"}}'
    if behaviour == "unauthorized":
        return 401, b'{"error": {"message": "invalid key", "type": "invalid_request_error"}}'
    if behaviour == "garbage":
        return 200, b"<html>not json"
    model = str(body.get("model", ""))
    reply: dict[str, Any] = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": f"{model}-served" + (f" {state.leak}" if behaviour == "leaky" else ""),
        "system_fingerprint": "fp_fake_judge" + (f"_{state.leak}" if behaviour == "leaky" else ""),
        "usage": _usage(body),
    }
    graded = "honest" if behaviour == "slow" else behaviour
    if model.startswith("bench/"):
        seats: list[dict[str, Any]] = [
            {
                "call": f"seat-{index}",
                "alias": f"reviewer-{index}-{seat}" + (f" {state.leak}" if seat == "leaky" else ""),
                "status": "error" if seat == "error" else "ok",
                "answer": None if seat == "error" else grade(seat, body, state.leak),
                "usage": _usage(body),
            }
            for index, seat in enumerate(state.panel)
        ]
        reply["bench"] = {"seats": seats}
        first = next((seat["answer"] for seat in seats if seat["answer"]), "")
        reply["choices"] = [_choice(first)]
    else:
        reply["choices"] = [_choice(grade(graded, body, state.leak))]
    return 200, json.dumps(reply).encode()


def _choice(content: str) -> dict[str, Any]:
    return {
        "index": 0,
        "finish_reason": "stop",
        "message": {"role": "assistant", "content": content, "refusal": None},
    }


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        del format, args

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        state = self.server.state
        with state.lock:
            state.requests.append(Recorded(self.path, dict(self.headers.items()), body))
        if not self.path.endswith("/chat/completions"):
            status, payload = 404, b'{"error": {"message": "no such route"}}'
        elif state.behaviour in ("truncated", "reset"):
            self._hang_up(state.behaviour, completion(replace(state, behaviour="honest"), body)[1])
            return
        else:
            status, payload = completion(state, body)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _hang_up(self, how: str, payload: bytes) -> None:
        """After reading the whole request: cut the body short, or reset the connection."""
        self.close_connection = True
        if how == "truncated":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload) + 500))
            self.end_headers()
            self.wfile.write(payload[: len(payload) // 2])
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        # SO_LINGER on with a zero timeout: close() sends a TCP reset instead of a FIN.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, state: FakeJudgeState) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.state = state


class FakeJudge:
    """The running server: ``base_url`` for Settings, ``state`` to steer and inspect it."""

    def __init__(self) -> None:
        self.state = FakeJudgeState()
        self._server = _Server(self.state)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def fake_judge() -> Iterator[FakeJudge]:
    judge = FakeJudge()
    yield judge
    judge.close()


def main() -> None:
    """Serve a fake judge in a process of its own (benchmarks): prints its base URL."""
    import argparse

    parser = argparse.ArgumentParser(description="A fake OpenAI-compatible judge.")
    parser.add_argument("--behaviour", default="honest")
    parser.add_argument("--delay", type=float, default=0.0)
    args = parser.parse_args()
    judge = FakeJudge()
    judge.state.behaviour, judge.state.delay = args.behaviour, args.delay
    print(judge.base_url, flush=True)
    try:
        threading.Event().wait()
    finally:
        judge.close()


if __name__ == "__main__":
    main()
