"""``benchmax-client mcp``: BenchMax as tools for an agent, over stdio (the official MCP SDK).

Each tool is a thin call to ``Client``, so an agent gets exactly what the API gives a script:
the same reads, the same Idempotency-Key, and a refusal in the server's own words (raised as a
``ToolError``, which the SDK hands the model as an error result). The descriptions are written
for a model choosing between tools: what each answers, when to use it, what it needs.

Secrets: the SDK's own log is kept at WARNING and the HTTP client's too, so neither a tool's
arguments (a prompt, an output) nor a request line is written to stderr; the token comes from
the environment or the config file, never from a tool argument.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypeVar

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from benchmax_client.client import Client
from benchmax_client.config import Settings
from benchmax_client.errors import ApiError, BenchmaxError
from benchmax_client.submission import Submission

T = TypeVar("T")
# Where submit_test may read files from; the folder the host started the server in otherwise.
ROOT_ENV = "BENCHMAX_MCP_ROOT"
# Rendered HTML twins of text fields: the text is there already, the HTML only costs tokens.
_HTML_FIELDS = ("output_html", "notes_html")

INSTRUCTIONS = """\
BenchMax is a public feed of AI Tests: one prompt given to one AI setup (model, harness,
reasoning setting) with the output and evidence that came back. Use search_tests to find
Tests, get_test to read one in full, get_prompt_group to compare every setup that was given
the same prompt, get_leaderboard for the ranked showcase, and submit_test to publish a Test
of a run you did (needs BENCHMAX_TOKEN). Everything you submit is public once its safety
checks pass; never put credentials, API keys or private data in it."""


def _refusal(error: BenchmaxError) -> ToolError:
    """The API's words, unchanged, plus its code so an agent can branch on it."""
    if isinstance(error, ApiError):
        where = f", field {error.field}" if error.field else ""
        wait = f"; retry after {error.retry_after:.0f} seconds" if error.retry_after else ""
        return ToolError(f"{error.message} ({error.status} {error.code}{where}{wait})")
    return ToolError(str(error))


async def _call(work: Callable[[], T]) -> T:
    """Run a blocking client call off the event loop; a refusal becomes the tool's error."""
    try:
        return await anyio.to_thread.run_sync(work)
    except BenchmaxError as error:
        raise _refusal(error) from None


class Tools:
    """The tools, bound to one client; each method's name and docstring are what the agent
    sees."""

    NAMES = ("search_tests", "get_test", "get_prompt_group", "get_leaderboard", "submit_test")

    def __init__(self, client: Client, root: Path) -> None:
        self._client = client
        self._root = root.resolve()

    def _sendable(self, name: str) -> Path:
        """A file the agent named, if it may leave the machine.

        An agent can be talked into "attaching" ``~/.ssh/id_ed25519`` or a project's ``.env``
        by text it read. So only files under the root are sent (symlinks resolved first), and
        none that is hidden or inside a hidden folder, where settings and credentials live.
        """
        path = (self._root / Path(name).expanduser()).resolve()
        if not path.is_relative_to(self._root):
            raise ToolError(
                f"{name} is outside {self._root}: submit_test sends only files under the folder "
                f"this server was started in (or {ROOT_ENV})."
            )
        if any(part.startswith(".") for part in path.relative_to(self._root).parts):
            raise ToolError(
                f"{name} is hidden (a dotfile or inside a dot folder), where settings and "
                "credentials live; submit_test does not send those."
            )
        return path

    async def search_tests(
        self,
        query: str = "",
        model: str = "",
        family: str = "",
        harness: str = "",
        reasoning: str = "",
        contributor: str = "",
        status: Literal["", "awaiting", "reviewed", "ranked"] = "",
        sort: Literal["", "newest", "most_reviewed", "top_score", "relevance"] = "",
        limit: int = 10,
        cursor: str = "",
    ) -> dict[str, Any]:
        """Search the public AI Tests on BenchMax. Use this to find what has already been
        tried: by words in the title, prompt or output (query: every word must match, "quoted
        phrases" and prefix* allowed), and/or by declared setup (model such as "GPT-5",
        family such as "claude", harness such as "Claude Code", reasoning such as "high"),
        contributor handle, or review status. Returns up to `limit` (1-100) cards, by
        relevance with a query and newest first without (or as `sort` says), each with its id
        (for get_test) and prompt_key (for get_prompt_group); pass next_cursor back as
        `cursor` for the next page."""
        filters = {
            "model": model,
            "family": family,
            "harness": harness,
            "reasoning": reasoning,
            "contributor": contributor,
            "status": status,
            "sort": sort,
        }
        return await _call(
            lambda: self._client.search(query, limit=limit, cursor=cursor or None, **filters)
        )

    async def get_test(self, test_id: str) -> dict[str, Any]:
        """Read one public BenchMax Test in full by its id: the exact prompt, the declared
        setup (model, version, harness, reasoning, settings, attempts), the output text,
        notes, evidence files with download links, reviews and its comparison group
        (prompt_key). Use after search_tests, or when given a Test id or /tests/ID link."""
        test = await _call(lambda: self._client.test(test_id))
        return {name: value for name, value in test.items() if name not in _HTML_FIELDS}

    async def get_prompt_group(self, prompt_key: str = "", test_id: str = "") -> dict[str, Any]:
        """Compare setups on one prompt: every public Test that was given exactly the same
        prompt, with each one's review score and rank band, plus similar prompts. Give the
        group's prompt_key (from search_tests or get_test), or a test_id to use that Test's
        prompt. Use this to see how different models or harnesses did on the same task."""
        if not prompt_key and not test_id:
            raise ToolError("Give prompt_key or test_id.")

        def group() -> dict[str, Any]:
            key = prompt_key or str(self._client.test(test_id)["prompt_key"])
            return self._client.group(key)

        return await _call(group)

    async def get_leaderboard(
        self,
        snapshot_id: str = "",
        model: str = "",
        family: str = "",
        harness: str = "",
        reasoning: str = "",
        single_attempt: bool = False,
        limit: int = 20,
        cursor: str = "",
    ) -> dict[str, Any]:
        """The BenchMax showcase leaderboard: reviewed, eligible Tests ranked by review score
        in a dated snapshot that never changes (the latest unless snapshot_id is given). Filter
        by declared model, family, harness or reasoning; single_attempt keeps only results
        that were not picked from several tries. Each row has rank, score, its 95% interval
        band and the Test. `snapshot` is null when no snapshot has been published yet."""
        filters = {"model": model, "family": family, "harness": harness, "reasoning": reasoning}
        if single_attempt:
            filters["single"] = "1"
        return await _call(
            lambda: self._client.leaderboard(
                snapshot_id or None, limit=limit, cursor=cursor or None, **filters
            )
        )

    async def submit_test(
        self,
        model: str,
        harness: str,
        reasoning: str,
        prompt: str = "",
        same_prompt_as: str = "",
        output: str = "",
        model_version: str = "",
        title: str = "",
        settings: str = "",
        attempts: int | None = None,
        notes: str = "",
        files: list[str] | None = None,
        source_zip: str = "",
        source_visibility: Literal["", "public", "private"] = "",
        wait_seconds: float = 60,
    ) -> dict[str, Any]:
        """Publish a Test of a run you (or your harness) did: the prompt given to an AI
        setup and what came back. Needs an API token (BENCHMAX_TOKEN in this server's
        environment). Give the exact prompt, or same_prompt_as=<Test id> to reuse a public
        Test's prompt so both land in one comparison group; model, harness and reasoning as
        declared ("Claude Sonnet 4.5", "Claude Code", "high"); the output as text and/or
        evidence `files` (local paths under this server's folder, relative or absolute; hidden
        files are refused): screenshots, logs, text; `source_zip` a ZIP of
        the produced source (index.html at its root gets an automated preview), public to
        download or private for the preview only. Every field and file is safety-checked;
        anything that looks like a credential is refused with the line it is on. Submitting
        the same content again returns the same Test, never a duplicate. Waits up to
        wait_seconds for the checks, then returns the status (public, needs_attention with
        the reason, or still processing) and the public URL once public."""
        if bool(prompt) == bool(same_prompt_as):
            raise ToolError("Give exactly one of prompt and same_prompt_as.")
        paths = [self._sendable(name) for name in [*(files or []), source_zip] if name]

        def submit() -> dict[str, Any]:
            text = prompt or str(self._client.test(same_prompt_as)["prompt"])
            submission = Submission(
                prompt=text,
                model=model,
                harness=harness,
                reasoning=reasoning,
                output=output or None,
                model_version=model_version or None,
                title=title or None,
                settings=settings or None,
                attempts=attempts,
                notes=notes or None,
                source_visibility=source_visibility or None,
                files=tuple(paths),
            )
            accepted = self._client.submit(submission)
            status = self._client.follow(accepted.id, timeout=max(0.0, min(wait_seconds, 600.0)))
            return {**status.to_json(), "status_url": accepted.status_url}

        return await _call(submit)


def build_server(settings: Settings, client: Client | None = None) -> MCPServer:
    root = Path(os.environ.get(ROOT_ENV) or Path.cwd())
    tools = Tools(client or Client(settings.url, settings.token), root)
    server = MCPServer("benchmax", instructions=INSTRUCTIONS, log_level="WARNING")
    for name in Tools.NAMES:
        server.add_tool(getattr(tools, name))
    return server


def serve(settings: Settings) -> None:
    """Run on stdin/stdout until the agent closes the connection."""
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.WARNING)
    build_server(settings).run("stdio")
