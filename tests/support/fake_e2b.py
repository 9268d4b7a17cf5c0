"""A local fake of E2B's two planes, for the real ``e2b`` SDK (``api_url``/``sandbox_url``).

Control plane (REST): ``POST /v2/sandboxes`` records the request (so a test can assert that
internet access was off and the metadata holds ids only) and ``DELETE /sandboxes/{id}``
records the kill. Sandbox plane (envd): ``/files`` reads and writes an in-memory filesystem,
and Connect-RPC ``process.Process/Start`` (the SDK's own server stubs) "runs" a command: it
records it and, unless told to fail, writes the evaluator's outputs the test provided.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import AsyncIterator
from typing import Any, Literal

import uvicorn
from e2b.envd.process import process_pb
from e2b.envd.process.process_connect import Process, ProcessASGIApplication
from protobuf import Oneof
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

SANDBOX_ID = "fake-sandbox-1"


class FakeE2B:
    def __init__(self, outputs: dict[str, bytes], *, exit_code: int = 0) -> None:
        self.outputs = outputs
        self.exit_code = exit_code
        self.created: list[dict[str, Any]] = []
        self.killed: list[str] = []
        self.commands: list[str] = []
        self.files: dict[str, bytes] = {}
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._server = uvicorn.Server(
            uvicorn.Config(self._app(), host="127.0.0.1", port=self.port, log_level="warning")
        )
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    def __enter__(self) -> FakeE2B:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            assert time.monotonic() < deadline, "fake E2B did not start"
            time.sleep(0.02)
        return self

    def __exit__(self, *_exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=5)

    def _app(self) -> Any:
        rest = Starlette(
            routes=[
                Route("/v2/sandboxes", self._create, methods=["POST"]),
                Route("/sandboxes/{sandbox_id}", self._kill, methods=["DELETE"]),
                Route("/files", self._files, methods=["GET", "POST"]),
            ]
        )
        process = ProcessASGIApplication(_Process(self))

        async def app(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] == "http" and scope["path"].startswith("/process.Process/"):
                await process(scope, receive, send)
            else:
                await rest(scope, receive, send)

        return app

    async def _create(self, request: Request) -> Response:
        self.created.append(await request.json())
        body = {
            "templateID": self.created[-1].get("templateID", ""),
            "sandboxID": SANDBOX_ID,
            "clientID": "fake",
            "envdVersion": "0.5.7",
            "envdAccessToken": "fake-envd-token",
        }
        return JSONResponse(body, status_code=201)

    async def _kill(self, request: Request) -> Response:
        self.killed.append(request.path_params["sandbox_id"])
        return Response(status_code=204)

    async def _files(self, request: Request) -> Response:
        path = request.query_params.get("path", "")
        if request.method == "GET":
            if path not in self.files:
                return JSONResponse({"code": 404, "message": "not found"}, status_code=404)
            return Response(self.files[path], media_type="application/octet-stream")
        if request.headers.get("content-type", "").startswith("multipart/"):
            form = await request.form()
            for _, upload in form.multi_items():
                data = await upload.read()  # type: ignore[union-attr]
                name = getattr(upload, "filename", "") or ""
                self.files[path or name] = data
        else:
            self.files[path] = await request.body()
        return JSONResponse([{"name": path.rsplit("/", 1)[-1], "type": "file", "path": path}])


class _Process(Process):
    def __init__(self, fake: FakeE2B) -> None:
        self.fake = fake

    async def start(self, request: Any, _ctx: Any) -> AsyncIterator[process_pb.StartResponse]:
        config = request.process
        self.fake.commands.append(" ".join([config.cmd, *config.args]))
        if self.fake.exit_code == 0:
            for name, data in self.fake.outputs.items():
                self.fake.files[f"/tmp/out/{name}"] = data
        event = process_pb.ProcessEvent
        started: Oneof[Literal["start"], process_pb.ProcessEvent.StartEvent]
        started = Oneof(field="start", value=event.StartEvent(pid=7))
        yield process_pb.StartResponse(event=event(event=started))
        end = event.EndEvent(exit_code=self.fake.exit_code, exited=True, status="exited")
        ended: Oneof[Literal["end"], process_pb.ProcessEvent.EndEvent]
        ended = Oneof(field="end", value=end)
        yield process_pb.StartResponse(event=event(event=ended))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def result_json(**fields: Any) -> bytes:
    base = {"template": "browser-web-v1", "status": "ok", "reason": "", "load_ms": 12}
    return json.dumps({**base, **fields}).encode()
