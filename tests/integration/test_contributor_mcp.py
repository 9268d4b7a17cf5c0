"""``benchmax-client mcp`` driven by the MCP SDK's own client over stdio, as an agent's host
would run it, against the real API and pipeline: the tools it lists, a search, a submission
that goes public, and a refusal in the API's own words."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import CallToolResult, TextContent
from sqlalchemy import Engine
from sqlmodel import Session

from benchmax.context import AppContext
from benchmax.services import tokens
from benchmax.settings import Settings
from tests.support.factories import make_user
from tests.support.live_api import serve_api
from tests.unit.safety.corpus import fake_secrets, png_bytes, write

TOOLS = {"search_tests", "get_test", "get_prompt_group", "get_leaderboard", "submit_test"}
SETUP = {"model": "Claude Sonnet 4.5", "harness": "Claude Code", "reasoning": "high"}


@pytest.fixture
def site(settings: Settings, engine: Engine) -> Iterator[tuple[str, str]]:
    with Session(engine, expire_on_commit=False) as session:
        user = make_user(session, handle="agent")
        _row, token = tokens.create_token(session, user, "mcp")
        session.commit()
    with serve_api(AppContext.from_settings(settings, engine=engine), jobs=True) as url:
        yield url, token


@asynccontextmanager
async def agent(url: str, token: str, log: Path, cwd: Path) -> AsyncIterator[ClientSession]:
    """The server as an agent's host starts it: the installed command in the agent's folder,
    the token in its environment."""
    env = {
        "BENCHMAX_URL": url,
        "BENCHMAX_TOKEN": token,
        "BENCHMAX_CONFIG": str(log.with_name("no-config.ini")),
        "PATH": os.environ.get("PATH", ""),
    }
    command = str(Path(sys.executable).with_name("benchmax-client"))
    params = StdioServerParameters(command=command, args=["mcp"], env=env, cwd=cwd)
    with log.open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write_stream),
            ClientSession(read, write_stream) as session,
        ):
            await session.initialize()
            yield session


def _json(result: CallToolResult) -> Any:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content
    first = result.content[0]
    assert isinstance(first, TextContent)
    return json.loads(first.text)


def _text(result: CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, TextContent))


@pytest.mark.asyncio
@pytest.mark.timeout(180)
async def test_an_agent_lists_searches_submits_and_is_refused_in_the_apis_words(
    site: tuple[str, str], tmp_path: Path
) -> None:
    url, token = site
    log = tmp_path / "mcp-stderr.log"
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    write(workspace, "shot.png", png_bytes())
    prompt = "Draw a lighthouse in SVG"
    async with agent(url, token, log, workspace) as session:
        listed = await session.list_tools()
        assert {tool.name for tool in listed.tools} == TOOLS
        for tool in listed.tools:
            assert tool.description is not None
            assert len(tool.description) > 120, tool.name

        submitted = _json(
            await session.call_tool(
                "submit_test",
                {"prompt": prompt, "output": "<svg/>", "files": ["shot.png"], **SETUP},
            )
        )
        assert submitted["state"] == "public", submitted
        assert submitted["public_url"] == f"{url}/tests/{submitted['id']}"
        again = _json(
            await session.call_tool(
                "submit_test",
                {"prompt": prompt, "output": "<svg/>", "files": ["shot.png"], **SETUP},
            )
        )
        assert again["id"] == submitted["id"]

        found = _json(await session.call_tool("search_tests", {"query": "lighthouse"}))
        assert [card["id"] for card in found["items"]] == [submitted["id"]]
        test = _json(await session.call_tool("get_test", {"test_id": submitted["id"]}))
        assert test["prompt"] == prompt
        assert "output_html" not in test
        group = _json(await session.call_tool("get_prompt_group", {"test_id": submitted["id"]}))
        assert [member["test"]["id"] for member in group["members"]] == [submitted["id"]]
        board = _json(await session.call_tool("get_leaderboard", {}))
        assert board["items"] == []

        secret = fake_secrets()["anthropic_api_key"]
        refused = await session.call_tool(
            "submit_test", {"prompt": f"Use {secret}", "output": "ok", **SETUP}
        )
        assert refused.is_error
        outside = [
            await session.call_tool("submit_test", {"prompt": prompt, "files": [name], **SETUP})
            for name in ["/etc/passwd", "../mcp-stderr.log", ".env", "sub/.ssh/id_ed25519"]
        ]
        missing = await session.call_tool("get_test", {"test_id": "no-such-test"})
        assert missing.is_error
        assert "No public Test has this id." in _text(missing)
    assert [result.is_error for result in outside] == [True] * 4
    assert "is outside" in _text(outside[0])
    assert "is outside" in _text(outside[1])
    assert "is hidden" in _text(outside[2])
    assert "is hidden" in _text(outside[3])
    words = _text(refused)
    assert "Line 1 of the prompt looks like" in words, words
    assert "400 secret_detected, field prompt" in words
    assert secret not in words
    written = log.read_text()
    for sent in (token, prompt, secret):
        assert sent not in written
